// Command report-probes feeds `restartsim report` and `restartsim gate` corrupted copies of the
// golden results.json and timeseries.csv (reports/testdata), one per probe, and prints a Markdown
// table of what each did: exit code, wall time and peak resident memory (VmHWM, sampled every
// 10 ms). Each probe runs with a
// time limit and under an address-space limit (prlimit), so a build that hangs or runs out of
// memory on one is stopped and reported rather than taking the machine with it.
//
//	go run ./hack/report-probes -binary bin/restartsim [-timeout 30s] [-memory 4GiB] [-run far-second]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	binary := flag.String("binary", "bin/restartsim", "the restartsim build to probe")
	testdata := flag.String("testdata", "reports/testdata", "directory of the golden results.json and timeseries.csv")
	timeout := flag.Duration("timeout", 30*time.Second, "time limit per probe")
	memory := flag.Int64("memory", 4<<30, "address-space limit per probe, in bytes")
	run := flag.String("run", "", "only the probes whose name matches this regular expression")
	flag.Parse()
	match, err := regexp.Compile(*run)
	if err != nil {
		fail(err)
	}
	golden, err := os.ReadFile(filepath.Join(*testdata, "results.json"))
	if err != nil {
		fail(err)
	}
	series, err := os.ReadFile(filepath.Join(*testdata, "timeseries.csv"))
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "report-probes-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	fmt.Println("| probe | command | exit | time | peak RSS | first line of stderr |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, p := range probes() {
		if !match.MatchString(p.name) {
			continue
		}
		dir := filepath.Join(work, p.name)
		if err := p.prepare(dir, golden, series); err != nil {
			fail(fmt.Errorf("%s: %w", p.name, err))
		}
		args := p.args
		if args == nil {
			args = []string{"report", "-f", "results.json", "-o", "out"}
		}
		r := measure(dir, *binary, args, *timeout, *memory)
		fmt.Printf("| %s | `%s` | %s | %s | %s | %s |\n", p.name, p.what, r.exit, r.wall, r.rss, r.stderr)
		_ = os.RemoveAll(dir)
	}
}

// probe is one corrupted input: what it changes (for the table), how to make its folder, and
// the command run in it (default: report -f results.json -o out).
type probe struct {
	name, what string
	prepare    func(dir string, golden, series []byte) error
	args       []string
}

func probes() []probe {
	var ps []probe
	// A value set at a JSON path of the golden results.
	set := func(name, path, value string) {
		ps = append(ps, probe{name: name, what: path + " = " + abbreviate(value), prepare: mutate(func(r map[string]any) error {
			return setPath(r, path, json.RawMessage(value))
		})})
	}
	set("huge-ttfmr", "strategies.0.summary.ttfmrSeconds", "1e300")
	set("huge-stop", "strategies.0.restart.stoppedSeconds", "1e300")
	set("huge-first-meaningful", "strategies.0.restart.firstMeaningfulSeconds", "1e300")
	set("huge-change-made", "strategies.0.changes.0.atSeconds", "1e300")
	set("huge-change-applied", "strategies.0.changes.0.appliedSeconds", "1e300")
	set("huge-latency", "strategies.0.changes.0.latencySeconds", "1e300")
	set("huge-event", "strategies.0.events.0.atSeconds", "1e300")
	set("huge-event-end", "strategies.0.events.1.endSeconds", "1e300")
	set("huge-p95", "strategies.0.summary.blindTime.p95", "1e300")
	set("huge-steady", "strategies.0.summary.steadyStateSeconds", "1e300")
	set("huge-sweep-ttfmr", "sweep.0.ttfmrSecondsByStrategy.checkpoint", "1e300")
	set("huge-sweep-size", "sweep.0.targetGroupBindings", "9223372036854775807")
	set("huge-wall", "scenario.wallSeconds", "1.7e308")
	set("huge-count", "strategies.0.summary.k8sWrites.other", "9223372036854775807")
	set("negative-ttfmr", "strategies.1.summary.ttfmrSeconds", "-100")
	set("negative-latency", "strategies.0.changes.0.latencySeconds", "-1e300")
	set("negative-event", "strategies.0.events.0.atSeconds", "-1e300")
	set("negative-calls", "strategies.0.summary.awsCalls.DescribeInstances", "-5")
	set("negative-quantile-count", "strategies.0.summary.blindTime.count", "-1")
	set("steal-fraction-5", "strategies.0.summary.machine", `{"cpus":2,"stealFraction":5}`)
	set("long-name", "strategies.0.name", strconv.Quote(strings.Repeat("n", 1<<20)))
	// Lists grown at a JSON path: n copies of an element made from its index.
	grow := func(name, path string, n int, elem func(i int) any) {
		ps = append(ps, probe{name: name, what: fmt.Sprintf("%s × %d", path, n), prepare: mutate(func(r map[string]any) error {
			list := make([]any, n)
			for i := range list {
				list[i] = elem(i)
			}
			return setPath(r, path, list)
		})})
	}
	// Strategies that each restarted: one panel each in the event timeline.
	restarted := func(i int) any {
		return map[string]any{"name": fmt.Sprint("s", i), "restart": map[string]any{"mode": "crash", "stoppedSeconds": 60, "startedSeconds": 61}}
	}
	grow("strategies-20000", "strategies", 20000, restarted)
	grow("strategies-1000", "strategies", 1000, restarted)
	grow("strategies-100", "strategies", 100, restarted)
	grow("changes-200000", "strategies.0.changes", 200000, func(i int) any {
		return map[string]any{"id": fmt.Sprint("c", i), "kind": "scale-up", "atSeconds": i % 600, "appliedSeconds": i%600 + 5, "latencySeconds": 5}
	})
	grow("events-100000", "strategies.0.events", 100000, func(i int) any {
		return map[string]any{"atSeconds": float64(i) / 200, "kind": "awsFault", "detail": "throttling"}
	})
	grow("restarts-100000", "strategies.0.restarts", 100000, func(i int) any {
		return map[string]any{"mode": "crash", "stoppedSeconds": i, "startedSeconds": i}
	})
	grow("sweep-100000", "sweep", 100000, func(i int) any {
		return map[string]any{"targetGroupBindings": i + 1, "ttfmrSecondsByStrategy": map[string]any{"checkpoint": 1}}
	})
	ps = append(ps, probe{name: "ab-metrics-20000", what: "ab.metrics × 20000 (one metric)", prepare: mutate(func(r map[string]any) error {
		metrics := make([]any, 20000)
		for i := range metrics {
			metrics[i] = map[string]any{"metric": "ttfmr_seconds", "minEffect": 0.1}
		}
		return setPath(r, "ab", map[string]any{"strategy": "checkpoint", "baseline": "no-checkpoint", "candidate": "checkpoint", "repeats": 1, "metrics": metrics})
	})})
	set("ab-repeats-1e9", "ab", `{"strategy":"checkpoint","baseline":"no-checkpoint","candidate":"checkpoint","repeats":1000000000,"block":1,"maxRepeats":2000000000,"metrics":[{"metric":"ttfmr_seconds"}]}`)
	// Whole files.
	file := func(name, what string, results func(golden []byte) []byte, series func(series []byte) []byte) {
		ps = append(ps, probe{name: name, what: what, prepare: func(dir string, g, s []byte) error {
			return write(dir, results(g), series(s))
		}})
	}
	same := func(b []byte) []byte { return b }
	file("truncated", "results.json cut in half", func(g []byte) []byte { return g[:len(g)/2] }, same)
	file("wrong-schema", "schemaVersion other", func(g []byte) []byte {
		return bytes.Replace(g, []byte("restartsim.results/v1"), []byte("other"), 1)
	}, same)
	file("empty", "results.json empty", func([]byte) []byte { return nil }, same)
	file("no-strategies", `{"schemaVersion":…,"strategies":[]}`, func([]byte) []byte {
		return []byte(`{"schemaVersion":"restartsim.results/v1","strategies":[]}`)
	}, same)
	file("padded-100MiB", "results.json + 100 MiB of spaces", func(g []byte) []byte {
		return append(append([]byte(nil), g...), bytes.Repeat([]byte(" "), 100<<20)...)
	}, same)
	ps = append(ps, probe{name: "dev-zero", what: "report -f /dev/zero", prepare: func(dir string, _, _ []byte) error { return os.MkdirAll(dir, 0o755) },
		args: []string{"report", "-f", "/dev/zero", "-o", "out"}})
	row := func(name, what, rows string) {
		file(name, what, same, func(s []byte) []byte { return append(append([]byte(nil), s...), rows...) })
	}
	row("far-second", "timeseries row at second 1e9", "checkpoint,1000000000,workqueue_depth,1\n")
	row("negative-second", "timeseries row at second -1e9", "checkpoint,-1000000000,workqueue_depth,1\n")
	row("max-second", "timeseries row at second 2^63-1", "checkpoint,9223372036854775807,workqueue_depth,1\n")
	row("nan-value", "timeseries value NaN", "checkpoint,10,workqueue_depth,NaN\n")
	row("inf-value", "timeseries value +Inf", "checkpoint,10,aws_calls:RegisterTargets,+Inf\n")
	row("huge-value", "timeseries value 1e308", "checkpoint,10,aws_calls:RegisterTargets,1e308\n")
	row("negative-value", "timeseries value -5", "checkpoint,10,workqueue_depth,-5\n")
	var ops strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&ops, "checkpoint,%d,aws_calls:Op%d,1\n", i%600, i)
	}
	row("operations-10000", "timeseries with 10,000 operations", ops.String())
	row("long-series-name", "timeseries series name of 1 MiB", "checkpoint,10,aws_calls:"+strings.Repeat("o", 1<<20)+",1\n")
	file("million-rows", "timeseries of 1,000,000 rows", same, func([]byte) []byte {
		var b bytes.Buffer
		b.WriteString("strategy,second,series,value\n")
		for i := range 1000000 {
			fmt.Fprintf(&b, "checkpoint,%d,aws_calls:RegisterTargets,1\n", i%86400)
		}
		return b.Bytes()
	})
	file("bad-header", "timeseries header a,b,c,d", same, func(s []byte) []byte {
		return append([]byte("a,b,c,d"), s[bytes.IndexByte(s, '\n'):]...)
	})
	ps = append(ps, probe{name: "timeseries-dev-zero", what: "timeseries.csv → /dev/zero", prepare: func(dir string, g, _ []byte) error {
		if err := write(dir, g, nil); err != nil {
			return err
		}
		return os.Symlink("/dev/zero", filepath.Join(dir, "timeseries.csv"))
	}})
	// The gate on a negative figure: a relative rule against the golden baseline.
	ps = append(ps, probe{name: "gate-negative", what: "gate: checkpoint ttfmrSeconds and blindTime.p95 = -100",
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
		args: []string{"gate", "-f", "results.json", "--baseline", "baseline.json"}})
	return ps
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

type result struct{ exit, wall, rss, stderr string }

// measure runs binary in dir under the limits.
func measure(dir, binary string, args []string, timeout time.Duration, memory int64) result {
	abs, err := filepath.Abs(binary)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "prlimit", append([]string{"--as=" + strconv.FormatInt(memory, 10), "--", abs}, args...)...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	peak := watchPeakRSS(cmd.Process.Pid)
	err = cmd.Wait()
	r := result{wall: fmt.Sprintf("%.2f s", time.Since(start).Seconds()), rss: fmt.Sprintf("%d MB", <-peak/1000)}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.exit = fmt.Sprintf("killed at %s", timeout)
	case err == nil:
		r.exit = "0"
	case errors.As(err, &exitErr):
		r.exit = strconv.Itoa(exitErr.ExitCode())
	default:
		fail(err)
	}
	line, _, _ := strings.Cut(stderr.String(), "\n")
	r.stderr = strings.ReplaceAll(abbreviate(strings.TrimPrefix(line, "error: ")), "|", `\|`)
	return r
}

// watchPeakRSS reads the process's peak resident memory (VmHWM, kB) every 10 ms until it is gone,
// then sends the last value read. The rusage of wait4 would not do: a child forked from this
// program starts with this program's peak, which the generated inputs raise.
func watchPeakRSS(pid int) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		for {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil || bytes.Contains(data, []byte("State:\tZ")) {
				out <- peak
				return
			}
			for _, line := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
					peak = max(peak, kb)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return out
}

// abbreviate keeps a table cell short.
func abbreviate(s string) string {
	if len(s) > 110 {
		return s[:110] + "…"
	}
	return s
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report-probes:", err)
	os.Exit(1)
}
