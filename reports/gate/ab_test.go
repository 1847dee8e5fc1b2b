package gate

import (
	"math"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/reports/results"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// abResults builds an A/B results with one summary per TTFMR value on each side.
func abResults(base, cand []float64, metrics ...results.ABMetric) *results.Results {
	side := func(name string, vals []float64) results.Strategy {
		s := results.Strategy{Name: name}
		for _, v := range vals {
			sum := results.Summary{}
			if !math.IsInf(v, 1) {
				v := v
				sum.TTFMRSeconds = &v
			}
			s.Runs = append(s.Runs, sum)
		}
		return s
	}
	if len(metrics) == 0 {
		metrics = []results.ABMetric{{Metric: results.MetricTTFMR, MinEffect: 0.2, MinDelta: 0.1}}
	}
	return &results.Results{
		Strategies: []results.Strategy{side("s-baseline", base), side("s", cand)},
		AB:         &results.AB{Strategy: "s", Baseline: "s-baseline", Candidate: "s", Alpha: 0.05, Metrics: metrics},
	}
}

func seq(from, step float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = from + step*float64(i)
	}
	return out
}

func TestMinUTestP(t *testing.T) {
	for _, tc := range []struct {
		n1, n2 int
		want   float64
	}{
		{3, 3, 0.1}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {8, 8, 2.0 / 12870}, {3, 5, 2.0 / 56}, {0, 4, 1}, {1, 1, 1},
	} {
		if got := minUTestP(tc.n1, tc.n2); !near(got, tc.want) {
			t.Errorf("minUTestP(%d, %d) = %g, want %g", tc.n1, tc.n2, got, tc.want)
		}
	}
}

// TestMannWhitneyKnownValues: exact two-sided p-values counted by hand from the U distribution.
func TestMannWhitneyKnownValues(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, cand []float64
		want       float64
	}{
		// Complete separation: 2 of C(10,5) = 252 orderings are as extreme.
		{"separated 5+5", seq(1, 1, 5), seq(6, 1, 5), 2.0 / 252},
		// U = 1: the orderings with U ≤ 1 are U = 0 and U = 1, one each, on both tails.
		{"one inversion 5+5", []float64{1, 2, 3, 4, 6}, []float64{5, 7, 8, 9, 10}, 4.0 / 252},
		{"separated 8+8", seq(1, 1, 8), seq(9, 1, 8), 2.0 / 12870},
	} {
		m := results.ABMetric{Metric: results.MetricTTFMR, MinEffect: 0}
		checks, err := EvaluateAB(abResults(tc.base, tc.cand, m))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := checks[0].P; !near(got, tc.want) {
			t.Errorf("%s: p = %g, want %g", tc.name, got, tc.want)
		}
	}
}

func TestHolm(t *testing.T) {
	checks := []ABCheck{{P: 0.01}, {P: 0.04}, {P: 0.03}, {P: 0.5, Skipped: true}}
	holm(checks)
	want := []float64{0.03, 0.06, 0.06}
	for i, w := range want {
		if !near(checks[i].PAdjusted, w) {
			t.Errorf("check %d: adjusted p = %g, want %g", i, checks[i].PAdjusted, w)
		}
	}
	if checks[3].PAdjusted != 0 {
		t.Errorf("a skipped check was adjusted: %g", checks[3].PAdjusted)
	}
}

// Weighted Holm by hand: weights 3, 1, 1 (total 5); p ÷ w orders them 0.003 (w 3), 0.01, 0.02.
// Step 1: 0.009 ÷ 3 × 5 = 0.015; step 2: 0.01 × 2 = 0.02; step 3: 0.02 × 1 = 0.02.
func TestWeightedHolm(t *testing.T) {
	w := func(p, weight float64) ABCheck { return ABCheck{P: p, Metric: results.ABMetric{Weight: weight}} }
	checks := []ABCheck{w(0.02, 1), w(0.009, 3), w(0.01, 1)}
	holm(checks)
	for i, want := range []float64{0.02, 0.015, 0.02} {
		if !near(checks[i].PAdjusted, want) {
			t.Errorf("check %d: adjusted p = %g, want %g", i, checks[i].PAdjusted, want)
		}
	}
	// The weight moves the level: p = 0.012 fails equal-weight Holm over 7 metrics (0.084) and
	// passes with weight 3 among 9 (0.036).
	equal := []ABCheck{w(0.012, 1), w(0.5, 1), w(0.5, 1), w(0.5, 1), w(0.5, 1), w(0.5, 1), w(0.5, 1)}
	weighted := append([]ABCheck(nil), equal...)
	weighted[0].Metric.Weight = 3
	holm(equal)
	holm(weighted)
	if !near(equal[0].PAdjusted, 0.084) || !near(weighted[0].PAdjusted, 0.036) {
		t.Errorf("adjusted p: equal weights %g (want 0.084), weight 3 %g (want 0.036)", equal[0].PAdjusted, weighted[0].PAdjusted)
	}
	if got := firstLevel(weighted, 0.05); !near(got, 0.05/9) {
		t.Errorf("first level %g, want alpha/9 for the least weighted", got)
	}
}

func TestEvaluateABVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, cand []float64
		want       Verdict
		reason     string
	}{
		{"2x slower", seq(1.4, 0.05, 8), seq(2.8, 0.1, 8), Fail, "significant"},
		{"A/A", seq(1.4, 0.05, 8), seq(1.41, 0.05, 8), Pass, "not significant"},
		// Every candidate run is slower, but by 10 %: below the minimum effect of 20 %.
		{"small but significant", seq(10, 0.01, 8), seq(11, 0.01, 8), Pass, "within the minimum effect"},
		{"2x faster", seq(2.8, 0.1, 8), seq(1.4, 0.05, 8), Improved, "vs baseline"},
		// A candidate whose changes were never applied has no TTFMR: +Inf, the worst value.
		{"never applied", seq(1.4, 0.05, 8), []float64{math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)}, Fail, "significant"},
	} {
		checks, err := EvaluateAB(abResults(tc.base, tc.cand))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c := checks[0]
		if c.Verdict != tc.want || !strings.Contains(c.Reason, tc.reason) {
			t.Errorf("%s: verdict %q (%s), want %q containing %q", tc.name, c.Verdict, c.Reason, tc.want, tc.reason)
		}
	}
}

func TestEvaluateABRatioAndMedians(t *testing.T) {
	checks, err := EvaluateAB(abResults(seq(1, 0.1, 8), seq(2, 0.2, 8)))
	if err != nil {
		t.Fatal(err)
	}
	c := checks[0]
	if !near(c.Ratio.Center, 2) || !(c.Ratio.Lo <= 2 && 2 <= c.Ratio.Hi) || c.Ratio.Lo <= 1 {
		t.Errorf("ratio %+v, want 2 inside an interval above 1", c.Ratio)
	}
	if !near(c.BaselineMedian.Center, 1.35) || !near(c.CandidateMedian.Center, 2.7) {
		t.Errorf("medians %+v, %+v, want 1.35 and 2.7", c.BaselineMedian, c.CandidateMedian)
	}
	for _, iv := range []Interval{c.BaselineMedian, c.CandidateMedian} {
		if iv.Lo > iv.Center || iv.Hi < iv.Center {
			t.Errorf("median interval %+v does not hold its median", iv)
		}
	}
	again, _ := EvaluateAB(abResults(seq(1, 0.1, 8), seq(2, 0.2, 8)))
	if again[0].Ratio != c.Ratio {
		t.Errorf("bootstrap interval not reproducible: %+v then %+v", c.Ratio, again[0].Ratio)
	}
}

func TestEvaluateABBadInput(t *testing.T) {
	// At 3 + 3 runs the test cannot go below p = 0.1: no verdict is possible.
	if _, err := EvaluateAB(abResults(seq(1, 1, 3), seq(5, 1, 3))); err == nil || !strings.Contains(err.Error(), "too few") {
		t.Errorf("3+3 runs: err = %v, want too few", err)
	}
	r := abResults(seq(1, 1, 8), seq(1, 1, 8))
	r.Strategies = r.Strategies[1:]
	if _, err := EvaluateAB(r); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("no baseline side: err = %v", err)
	}
	if _, err := EvaluateAB(&results.Results{}); err == nil {
		t.Error("no A/B section: no error")
	}
}

// TestEvaluateABSkipsUnmeasured: a metric neither side measured is skipped and does not count in
// the Holm correction.
func TestEvaluateABSkipsUnmeasured(t *testing.T) {
	r := abResults(seq(1.4, 0.05, 8), seq(2.8, 0.1, 8),
		results.ABMetric{Metric: results.MetricTTFMR, MinEffect: 0.2},
		results.ABMetric{Metric: results.MetricControllerCPUBeforeFirst, MinEffect: 0.2})
	checks, err := EvaluateAB(r)
	if err != nil {
		t.Fatal(err)
	}
	if !checks[1].Skipped || checks[1].Verdict != Pass {
		t.Errorf("cpu check %+v, want skipped", checks[1])
	}
	if !near(checks[0].PAdjusted, checks[0].P) {
		t.Errorf("adjusted p %g, want the raw %g (one metric tested)", checks[0].PAdjusted, checks[0].P)
	}
}

// TestABOutput: the table shows medians, ratio, p-value, limit and the failure's reason; JUnit
// carries the candidate's median as the test case's time and every value as properties.
func TestABOutput(t *testing.T) {
	r := abResults(seq(1.4, 0.05, 8), seq(2.8, 0.1, 8))
	r.Scenario.Name = "ci"
	rep, err := Evaluate(r, nil)
	if !IsViolation(err) || !strings.Contains(err.Error(), "ab/ttfmr_seconds") {
		t.Fatalf("err = %v, want a violation naming ab/ttfmr_seconds", err)
	}
	var table strings.Builder
	if err := WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"A/B METRIC", "ttfmr_seconds", "1.575 [", "3.15 [", "×2 [", "FAIL: +100%"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var junit strings.Builder
	if err := WriteJUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`name="ab/ttfmr_seconds"`, `time="3.150"`, `<property name="pHolm"`, `<property name="candidate" value="2.8 2.9`, `failures="1"`, `type="regression"`} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("junit lacks %q:\n%s", want, junit.String())
		}
	}
}
