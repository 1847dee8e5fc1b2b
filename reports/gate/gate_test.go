package gate_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

const goldenResults = "../testdata/results.json"

func load(t *testing.T) *results.Results {
	t.Helper()
	r, err := results.Load(goldenResults)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func strategy(t *testing.T, r *results.Results, name string) *results.Strategy {
	t.Helper()
	s, ok := r.Strategy(name)
	if !ok {
		t.Fatalf("no strategy %q", name)
	}
	return s
}

func scale(m map[string]int, f float64) {
	for k, v := range m {
		m[k] = int(float64(v) * f)
	}
}

// A negative or non-finite figure, in the run or its baseline, is corrupted input: it would pass
// any limit taken relative to it (a checkpoint TTFMR of -100 s made the ratio -0.55, under its
// max of 0.5).
func TestEvaluateRefusesCorruptedFigures(t *testing.T) {
	for _, tt := range []struct {
		name     string
		baseline bool // corrupt the baseline rather than the run
		strategy string
		v        float64
		want     string
	}{
		{name: "negative, relative rule", strategy: "checkpoint", v: -100, want: `ttfmr_seconds of strategy "checkpoint" is -100`},
		{name: "negative denominator", strategy: "no-checkpoint", v: -1, want: `ttfmr_seconds of strategy "no-checkpoint" is -1`},
		{name: "infinite", strategy: "checkpoint", v: math.Inf(1), want: "is +Inf"},
		{name: "not a number", strategy: "checkpoint", v: math.NaN(), want: "is NaN"},
		{name: "negative baseline", baseline: true, strategy: "checkpoint", v: -100, want: `baseline: corrupted results: ttfmr_seconds of strategy "checkpoint" is -100`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base, cur := load(t), load(t)
			target := cur
			if tt.baseline {
				target = base
			}
			v := tt.v
			strategy(t, target, tt.strategy).Summary.TTFMRSeconds = &v
			_, err := gate.Evaluate(cur, base)
			if err == nil || gate.IsViolation(err) || gate.IsInconclusive(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want bad input containing %q", err, tt.want)
			}
		})
	}
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name       string
		mutate     func(t *testing.T, cur *results.Results)
		wantFailed []string // check names; nil means the gate passes
		wantErr    string   // bad input
		verdicts   map[string]gate.Verdict
	}{
		{name: "same run passes", mutate: func(*testing.T, *results.Results) {}},
		{
			name: "regression in AWS calls is caught",
			mutate: func(t *testing.T, cur *results.Results) {
				scale(strategy(t, cur, "checkpoint").Summary.AWSCallsBeforeFirstMeaningful, 1.5)
			},
			wantFailed: []string{"checkpoint/aws_calls_before_first_meaningful"},
		},
		{
			name: "regression within the allowance and slack passes",
			mutate: func(t *testing.T, cur *results.Results) {
				scale(strategy(t, cur, "checkpoint").Summary.AWSCallsBeforeFirstMeaningful, 1.25) // 203 → 253 ≤ 203×1.2+20
			},
		},
		{
			name: "improvement passes and is marked",
			mutate: func(t *testing.T, cur *results.Results) {
				scale(strategy(t, cur, "checkpoint").Summary.AWSCallsBeforeFirstMeaningful, 0.5)
				strategy(t, cur, "checkpoint").Summary.K8sWrites.CheckpointPatches = 10
			},
			verdicts: map[string]gate.Verdict{
				"checkpoint/aws_calls_before_first_meaningful": gate.Improved,
				"checkpoint/k8s_writes_total":                  gate.Improved,
				"checkpoint/ttfmr_seconds÷no-checkpoint":       gate.Pass,
			},
		},
		{
			name: "relative TTFMR over its absolute max is caught even when the baseline moves",
			mutate: func(t *testing.T, cur *results.Results) {
				// 100 / 181.5 = 0.55 > max 0.5; the same slowdown in both strategies would cancel out.
				v := 100.0
				strategy(t, cur, "checkpoint").Summary.TTFMRSeconds = &v
			},
			wantFailed: []string{"checkpoint/ttfmr_seconds÷no-checkpoint"},
		},
		{
			name: "machine-speed slowdown of every strategy cancels in the ratio",
			mutate: func(t *testing.T, cur *results.Results) {
				for i := range cur.Strategies {
					*cur.Strategies[i].Summary.TTFMRSeconds *= 3
				}
			},
		},
		{
			name: "missing metric is a clear error, not a violation",
			mutate: func(t *testing.T, cur *results.Results) {
				strategy(t, cur, "checkpoint").Summary.TTFMRSeconds = nil
			},
			wantErr: `current results: metric ttfmr_seconds is missing for strategy "checkpoint"`,
		},
		{
			name: "unknown strategy",
			mutate: func(t *testing.T, cur *results.Results) {
				cur.Gate[1].Strategy = "nope"
			},
			wantErr: `no strategy "nope" (have: no-checkpoint, checkpoint)`,
		},
		{
			name: "unknown metric",
			mutate: func(t *testing.T, cur *results.Results) {
				cur.Gate[0].Metric = "speed"
			},
			wantErr: `rule 1: unknown metric "speed"`,
		},
		{
			name:    "no rules",
			mutate:  func(t *testing.T, cur *results.Results) { cur.Gate = nil },
			wantErr: "have no gate rules",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, cur := load(t), load(t)
			tt.mutate(t, cur)
			rep, err := gate.Evaluate(cur, base)
			if tt.wantErr != "" {
				if err == nil || gate.IsViolation(err) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want bad input containing %q", err, tt.wantErr)
				}
				return
			}
			var failed []string
			if err != nil {
				if !gate.IsViolation(err) {
					t.Fatalf("err = %v, want nil or a violation", err)
				}
				for _, c := range rep.Failed() {
					failed = append(failed, c.Name())
				}
			}
			if strings.Join(failed, ",") != strings.Join(tt.wantFailed, ",") {
				t.Fatalf("failed %v, want %v (err %v)", failed, tt.wantFailed, err)
			}
			if len(rep.Checks) != len(cur.Gate) {
				t.Errorf("%d checks for %d rules", len(rep.Checks), len(cur.Gate))
			}
			for _, c := range rep.Checks {
				if want, ok := tt.verdicts[c.Name()]; ok && c.Verdict != want {
					t.Errorf("%s: verdict %q, want %q", c.Name(), c.Verdict, want)
				}
			}
		})
	}
}

func TestBaselineMissingMetricIsBadInput(t *testing.T) {
	base, cur := load(t), load(t)
	base.Strategies = base.Strategies[:1] // baseline recorded before the checkpoint strategy existed
	_, err := gate.Evaluate(cur, base)
	if err == nil || gate.IsViolation(err) || !strings.Contains(err.Error(), "baseline: no strategy \"checkpoint\"") ||
		!strings.Contains(err.Error(), "--update-baseline") {
		t.Fatalf("err = %v", err)
	}
}

func TestWithoutBaselineOnlyAbsoluteLimits(t *testing.T) {
	cur := load(t)
	scale(strategy(t, cur, "checkpoint").Summary.AWSCallsBeforeFirstMeaningful, 10)
	rep, err := gate.Evaluate(cur, nil)
	if err != nil {
		t.Fatalf("no baseline: regression rules must not apply: %v", err)
	}
	if rep.Checks[0].Limit != 0.5 || rep.Checks[1].Baseline != nil {
		t.Errorf("checks %+v", rep.Checks)
	}
}

func TestTableAndJUnit(t *testing.T) {
	base, cur := load(t), load(t)
	scale(strategy(t, cur, "checkpoint").Summary.AWSCallsBeforeFirstMeaningful, 2)
	rep, err := gate.Evaluate(cur, base)
	if !gate.IsViolation(err) {
		t.Fatalf("err = %v, want a violation", err)
	}
	var table bytes.Buffer
	if err := gate.WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(table.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "STRATEGY") {
		t.Fatalf("table:\n%s", table.String())
	}
	for _, want := range []string{"METRIC", "BASELINE", "CURRENT", "LIMIT", "VERDICT"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("header %q lacks %s", lines[0], want)
		}
	}
	// 203 → 406 calls; limit 203 × 1.2 + 20 = 263.6.
	if row := lines[2]; !strings.Contains(row, "203") || !strings.Contains(row, "406") || !strings.Contains(row, "263.6") || !strings.Contains(row, "FAIL: +100% over baseline") {
		t.Errorf("row %q", row)
	}

	var out bytes.Buffer
	if err := gate.WriteJUnit(&out, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("junit does not parse: %v\n%s", err, out.String())
	}
	if doc.Tests != 3 || doc.Failures != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 3 {
		t.Fatalf("junit: %+v", doc)
	}
	if c := doc.Suites[0].Cases[1]; c.Name != "checkpoint/aws_calls_before_first_meaningful" || c.Failure == nil {
		t.Errorf("case %+v", c)
	}

	out.Reset()
	if err := gate.WriteJUnitError(&out, "golden", "input", errors.New("bad baseline")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `errors="1"`) || !strings.Contains(out.String(), "bad baseline") {
		t.Errorf("junit error:\n%s", out.String())
	}
}
