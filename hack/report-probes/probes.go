package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// probe is one corrupted input: what it changes (for the table), how to make its folder, and
// the command run in it (default: report -f results.json -o out).
type probe struct {
	name, what string
	prepare    func(dir string, golden, series []byte) error
	args       []string
}

// probes lists every probe in the table's order: single values, grown lists, the A/B section,
// whole results files, time-series rows, then the gate.
func probes() []probe {
	var ps []probe
	for _, group := range [][]probe{valueProbes(), listProbes(), abProbes(), fileProbes(), seriesProbes()} {
		ps = append(ps, group...)
	}
	return append(ps, gateProbe())
}

// setProbe sets a value at a JSON path of the golden results.
func setProbe(name, path, value string) probe {
	return probe{name: name, what: path + " = " + abbreviate(value), prepare: mutate(func(r map[string]any) error {
		return setPath(r, path, json.RawMessage(value))
	})}
}

// valueProbes put out-of-range figures and names at single places of the results.
func valueProbes() []probe {
	return []probe{
		setProbe("huge-ttfmr", "strategies.0.summary.ttfmrSeconds", "1e300"),
		setProbe("huge-stop", "strategies.0.restart.stoppedSeconds", "1e300"),
		setProbe("huge-first-meaningful", "strategies.0.restart.firstMeaningfulSeconds", "1e300"),
		setProbe("huge-change-made", "strategies.0.changes.0.atSeconds", "1e300"),
		setProbe("huge-change-applied", "strategies.0.changes.0.appliedSeconds", "1e300"),
		setProbe("huge-latency", "strategies.0.changes.0.latencySeconds", "1e300"),
		setProbe("huge-event", "strategies.0.events.0.atSeconds", "1e300"),
		setProbe("huge-event-end", "strategies.0.events.1.endSeconds", "1e300"),
		setProbe("huge-p95", "strategies.0.summary.blindTime.p95", "1e300"),
		setProbe("huge-steady", "strategies.0.summary.steadyStateSeconds", "1e300"),
		setProbe("huge-sweep-ttfmr", "sweep.0.ttfmrSecondsByStrategy.checkpoint", "1e300"),
		setProbe("huge-sweep-size", "sweep.0.targetGroupBindings", "9223372036854775807"),
		setProbe("huge-wall", "scenario.wallSeconds", "1.7e308"),
		setProbe("huge-count", "strategies.0.summary.k8sWrites.other", "9223372036854775807"),
		setProbe("negative-ttfmr", "strategies.1.summary.ttfmrSeconds", "-100"),
		setProbe("negative-latency", "strategies.0.changes.0.latencySeconds", "-1e300"),
		setProbe("negative-event", "strategies.0.events.0.atSeconds", "-1e300"),
		setProbe("negative-calls", "strategies.0.summary.awsCalls.DescribeInstances", "-5"),
		setProbe("negative-quantile-count", "strategies.0.summary.blindTime.count", "-1"),
		setProbe("steal-fraction-5", "strategies.0.summary.machine", `{"cpus":2,"stealFraction":5}`),
		setProbe("long-name", "strategies.0.name", strconv.Quote(strings.Repeat("n", 1<<20))),
	}
}

// growProbe puts a list of n elements, each made from its index, at a JSON path.
func growProbe(name, path string, n int, elem func(i int) any) probe {
	return probe{name: name, what: fmt.Sprintf("%s × %d", path, n), prepare: mutate(func(r map[string]any) error {
		list := make([]any, n)
		for i := range list {
			list[i] = elem(i)
		}
		return setPath(r, path, list)
	})}
}

// listProbes grow the lists a report draws one mark, row or panel per element of.
func listProbes() []probe {
	// Strategies that each restarted: one panel each in the event timeline.
	restarted := func(i int) any {
		return map[string]any{"name": fmt.Sprint("s", i), "restart": map[string]any{"mode": "crash", "stoppedSeconds": 60, "startedSeconds": 61}}
	}
	return []probe{
		growProbe("strategies-20000", "strategies", 20000, restarted),
		growProbe("strategies-1000", "strategies", 1000, restarted),
		growProbe("strategies-100", "strategies", 100, restarted),
		growProbe("changes-200000", "strategies.0.changes", 200000, func(i int) any {
			return map[string]any{"id": fmt.Sprint("c", i), "kind": "scale-up", "atSeconds": i % 600, "appliedSeconds": i%600 + 5, "latencySeconds": 5}
		}),
		growProbe("events-100000", "strategies.0.events", 100000, func(i int) any {
			return map[string]any{"atSeconds": float64(i) / 200, "kind": "awsFault", "detail": "throttling"}
		}),
		growProbe("restarts-100000", "strategies.0.restarts", 100000, func(i int) any {
			return map[string]any{"mode": "crash", "stoppedSeconds": i, "startedSeconds": i}
		}),
		growProbe("sweep-100000", "sweep", 100000, func(i int) any {
			return map[string]any{"targetGroupBindings": i + 1, "ttfmrSecondsByStrategy": map[string]any{"checkpoint": 1}}
		}),
	}
}

// abProbes add an A/B section with too many checks or a sampling plan too long to run.
func abProbes() []probe {
	metrics := probe{name: "ab-metrics-20000", what: "ab.metrics × 20000 (one metric)", prepare: mutate(func(r map[string]any) error {
		metrics := make([]any, 20000)
		for i := range metrics {
			metrics[i] = map[string]any{"metric": "ttfmr_seconds", "minEffect": 0.1}
		}
		return setPath(r, "ab", map[string]any{"strategy": "checkpoint", "baseline": "no-checkpoint", "candidate": "checkpoint", "repeats": 1, "metrics": metrics})
	})}
	return []probe{
		metrics,
		setProbe("ab-repeats-1e9", "ab", `{"strategy":"checkpoint","baseline":"no-checkpoint","candidate":"checkpoint","repeats":1000000000,"block":1,"maxRepeats":2000000000,"metrics":[{"metric":"ttfmr_seconds"}]}`),
	}
}

// fileProbe writes both files whole, each made from its golden.
func fileProbe(name, what string, results func(golden []byte) []byte, series func(series []byte) []byte) probe {
	return probe{name: name, what: what, prepare: func(dir string, g, s []byte) error {
		return write(dir, results(g), series(s))
	}}
}

func same(b []byte) []byte { return b }

// fileProbes replace results.json whole: cut, mislabelled, empty, padded or endless.
func fileProbes() []probe {
	return []probe{
		fileProbe("truncated", "results.json cut in half", func(g []byte) []byte { return g[:len(g)/2] }, same),
		fileProbe("wrong-schema", "schemaVersion other", func(g []byte) []byte {
			return bytes.Replace(g, []byte("restartsim.results/v1"), []byte("other"), 1)
		}, same),
		fileProbe("empty", "results.json empty", func([]byte) []byte { return nil }, same),
		fileProbe("no-strategies", `{"schemaVersion":…,"strategies":[]}`, func([]byte) []byte {
			return []byte(`{"schemaVersion":"restartsim.results/v1","strategies":[]}`)
		}, same),
		fileProbe("padded-100MiB", "results.json + 100 MiB of spaces", func(g []byte) []byte {
			return append(append([]byte(nil), g...), bytes.Repeat([]byte(" "), 100<<20)...)
		}, same),
		{name: "dev-zero", what: "report -f /dev/zero", prepare: func(dir string, _, _ []byte) error { return os.MkdirAll(dir, 0o755) },
			args: []string{"report", "-f", "/dev/zero", "-o", "out"}},
	}
}

// rowProbe appends rows to the golden time series.
func rowProbe(name, what, rows string) probe {
	return fileProbe(name, what, same, func(s []byte) []byte { return append(append([]byte(nil), s...), rows...) })
}

// seriesProbes corrupt timeseries.csv: rows far off in time or value, too many series or rows,
// a wrong header, an endless file.
func seriesProbes() []probe {
	var ops strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&ops, "checkpoint,%d,aws_calls:Op%d,1\n", i%600, i)
	}
	return []probe{
		rowProbe("far-second", "timeseries row at second 1e9", "checkpoint,1000000000,workqueue_depth,1\n"),
		rowProbe("negative-second", "timeseries row at second -1e9", "checkpoint,-1000000000,workqueue_depth,1\n"),
		rowProbe("max-second", "timeseries row at second 2^63-1", "checkpoint,9223372036854775807,workqueue_depth,1\n"),
		rowProbe("nan-value", "timeseries value NaN", "checkpoint,10,workqueue_depth,NaN\n"),
		rowProbe("inf-value", "timeseries value +Inf", "checkpoint,10,aws_calls:RegisterTargets,+Inf\n"),
		rowProbe("huge-value", "timeseries value 1e308", "checkpoint,10,aws_calls:RegisterTargets,1e308\n"),
		rowProbe("negative-value", "timeseries value -5", "checkpoint,10,workqueue_depth,-5\n"),
		rowProbe("operations-10000", "timeseries with 10,000 operations", ops.String()),
		rowProbe("long-series-name", "timeseries series name of 1 MiB", "checkpoint,10,aws_calls:"+strings.Repeat("o", 1<<20)+",1\n"),
		fileProbe("million-rows", "timeseries of 1,000,000 rows", same, func([]byte) []byte {
			var b bytes.Buffer
			b.WriteString("strategy,second,series,value\n")
			for i := range 1000000 {
				fmt.Fprintf(&b, "checkpoint,%d,aws_calls:RegisterTargets,1\n", i%86400)
			}
			return b.Bytes()
		}),
		fileProbe("bad-header", "timeseries header a,b,c,d", same, func(s []byte) []byte {
			return append([]byte("a,b,c,d"), s[bytes.IndexByte(s, '\n'):]...)
		}),
		{name: "timeseries-dev-zero", what: "timeseries.csv → /dev/zero", prepare: func(dir string, g, _ []byte) error {
			if err := write(dir, g, nil); err != nil {
				return err
			}
			return os.Symlink("/dev/zero", filepath.Join(dir, "timeseries.csv"))
		}},
	}
}

// gateProbe runs the gate on a negative figure: a relative rule against the golden baseline.
func gateProbe() probe {
	return probe{name: "gate-negative", what: "gate: checkpoint ttfmrSeconds and blindTime.p95 = -100",
		prepare: func(dir string, g, s []byte) error {
			if err := mutate(func(r map[string]any) error {
				if err := setPath(r, "strategies.1.summary.ttfmrSeconds", -100); err != nil {
					return err
				}
				return setPath(r, "strategies.1.summary.blindTime.p95", -100)
			})(dir, g, s); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "baseline.json"), g, 0o644)
		},
		args: []string{"gate", "-f", "results.json", "--baseline", "baseline.json"}}
}

// mutate returns a prepare function that writes the golden results changed by f, beside the
// golden time series.
func mutate(f func(r map[string]any) error) func(dir string, golden, series []byte) error {
	return func(dir string, golden, series []byte) error {
		var r map[string]any
		if err := json.Unmarshal(golden, &r); err != nil {
			return err
		}
		if err := f(r); err != nil {
			return err
		}
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		return write(dir, data, series)
	}
}

func write(dir string, results, series []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), results, 0o644); err != nil {
		return err
	}
	if series == nil {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, "timeseries.csv"), series, 0o644)
}

// setPath sets the value at a dotted path (list indices as numbers) of decoded JSON.
func setPath(v any, path string, value any) error {
	keys := strings.Split(path, ".")
	for i, k := range keys {
		last := i == len(keys)-1
		switch node := v.(type) {
		case map[string]any:
			if last {
				node[k] = value
				return nil
			}
			v = node[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n >= len(node) {
				return fmt.Errorf("%s: no element %s", path, k)
			}
			if last {
				node[n] = value
				return nil
			}
			v = node[n]
		default:
			return fmt.Errorf("%s: %s is not an object or a list", path, strings.Join(keys[:i], "."))
		}
	}
	return nil
}
