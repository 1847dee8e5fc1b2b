package gate

import (
	"math"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/results"
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
		AB:         &results.AB{Strategy: "s", Baseline: "s-baseline", Candidate: "s", Alpha: 0.05, Metrics: metrics, Repeats: min(len(base), len(cand))},
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
		out, err := EvaluateAB(abResults(tc.base, tc.cand, m))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := out.Checks[0].P; !near(got, tc.want) {
			t.Errorf("%s: p = %g, want %g", tc.name, got, tc.want)
		}
	}
}

// TestEvaluateABVerdicts: the three verdicts against known samples, judged at one look (the
// whole alpha, 0.05, on one metric).
func TestEvaluateABVerdicts(t *testing.T) {
	rel := results.ABMetric{Metric: results.MetricTTFMR, MinEffect: 0.2, MinDelta: 0.1}
	abs := rel
	abs.AbsEffect = 0.5
	inf := math.Inf(1)
	for _, tc := range []struct {
		name       string
		base, cand []float64
		metric     results.ABMetric
		want       Verdict
		reason     string
	}{
		{"2x slower", seq(1.4, 0.05, 8), seq(2.8, 0.1, 8), rel, Fail, "above the minimum effect"},
		{"A/A, tight", seq(1.4, 0.05, 8), seq(1.41, 0.05, 8), rel, Pass, "no regression above +20%"},
		// Every candidate run is slower, but by 10 %: significant, below the minimum effect...
		{"small but significant", seq(10, 0.01, 8), seq(11, 0.01, 8), rel, Pass, "significant, below the minimum effect"},
		// ... unless the metric's absolute minimum effect (0.5 s) is smaller than the +1 s.
		{"small relative, large absolute", seq(10, 0.01, 8), seq(11, 0.01, 8), abs, Fail, "+20% or +0.5 s"},
		{"2x faster", seq(2.8, 0.1, 8), seq(1.4, 0.05, 8), rel, Improved, "vs baseline"},
		// A candidate whose changes were never applied has no TTFMR: +Inf, the worst value.
		{"never applied", seq(1.4, 0.05, 8), []float64{inf, inf, inf, inf, inf, inf, inf, inf}, rel, Fail, "significant"},
		// The sides overlap and spread from 1 to 3: neither a regression nor its absence is shown.
		{"A/A, noisy", []float64{1, 1.3, 1.6, 1.9, 2.2, 2.5, 2.8, 3.1}, []float64{1.1, 1.4, 1.7, 2.0, 2.3, 2.6, 2.9, 3.2}, rel, Inconclusive, "interval reaches above"},
		// At 3 + 3 runs the test cannot go below p = 0.1.
		{"too few runs", seq(1, 1, 3), seq(5, 1, 3), rel, Inconclusive, "too few runs"},
	} {
		out, err := EvaluateAB(abResults(tc.base, tc.cand, tc.metric))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c := out.Checks[0]
		if c.Verdict != tc.want || !strings.Contains(c.Reason, tc.reason) {
			t.Errorf("%s: verdict %q (%s), want %q containing %q", tc.name, c.Verdict, c.Reason, tc.want, tc.reason)
		}
		want := tc.want
		if want == Improved {
			want = Pass
		}
		if out.Verdict != want {
			t.Errorf("%s: comparison %q (%s), want %q", tc.name, out.Verdict, out.Reason, want)
		}
		if want == Inconclusive && (out.Advice == "" || !strings.Contains(out.Reason, "ttfmr_seconds")) {
			t.Errorf("%s: reason %q, advice %q: want the check named and what to do", tc.name, out.Reason, out.Advice)
		}
	}
}

func TestEvaluateABRatioAndMedians(t *testing.T) {
	out, err := EvaluateAB(abResults(seq(1, 0.1, 8), seq(2, 0.2, 8)))
	if err != nil {
		t.Fatal(err)
	}
	c := out.Checks[0]
	if !near(c.Ratio.Center, 2) || !(c.Ratio.Lo <= 2 && 2 <= c.Ratio.Hi) || c.Ratio.Lo <= 1 {
		t.Errorf("ratio %+v, want 2 inside an interval above 1", c.Ratio)
	}
	if !near(c.Diff.Center, 1.35) || !(c.Diff.Lo <= 1.35 && 1.35 <= c.Diff.Hi) || c.Diff.Lo <= 0 {
		t.Errorf("difference %+v, want 1.35 inside an interval above 0", c.Diff)
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
	if again.Checks[0].Ratio != c.Ratio {
		t.Errorf("shift interval not reproducible: %+v then %+v", c.Ratio, again.Checks[0].Ratio)
	}
}

func TestEvaluateABBadInput(t *testing.T) {
	r := abResults(seq(1, 1, 8), seq(1, 1, 8))
	r.Strategies = r.Strategies[1:]
	if _, err := EvaluateAB(r); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("no baseline side: err = %v", err)
	}
	if _, err := EvaluateAB(&results.Results{}); err == nil {
		t.Error("no A/B section: no error")
	}
	if _, err := EvaluateAB(abResults([]float64{1}, []float64{2})); err == nil || !strings.Contains(err.Error(), "two per side") {
		t.Errorf("1 + 1 runs: err = %v", err)
	}
	// A budget that ended the first look's runs early: judged at the first look's level.
	r = abResults(seq(1.4, 0.05, 8), seq(2.8, 0.1, 8))
	r.AB.Repeats, r.AB.Block, r.AB.MaxRepeats = 10, 4, 22
	out, err := EvaluateAB(r)
	if err != nil || out.Runs != 8 || out.Look != 0 || out.Verdict != Fail {
		t.Errorf("8 runs of a first look at 10: %+v, %v; want a FAIL at look 0 on 8 runs", out, err)
	}
}

// TestEvaluateABSkipsUnmeasured: a metric neither side measured is skipped and takes no share of
// alpha.
func TestEvaluateABSkipsUnmeasured(t *testing.T) {
	r := abResults(seq(1.4, 0.05, 8), seq(2.8, 0.1, 8),
		results.ABMetric{Metric: results.MetricTTFMR, MinEffect: 0.2},
		results.ABMetric{Metric: results.MetricControllerCPUBeforeFirst, MinEffect: 0.2})
	out, err := EvaluateAB(r)
	if err != nil {
		t.Fatal(err)
	}
	if c := out.Checks[1]; !c.Skipped || c.Verdict != Pass {
		t.Errorf("cpu check %+v, want skipped", c)
	}
	if !near(out.Checks[0].Level, 0.05) {
		t.Errorf("level %g, want the whole alpha (one metric tested)", out.Checks[0].Level)
	}
}

// TestSpreadLowersWeight: a metric whose pooled spread is far wider than its minimum effect weighs
// less and, unless it is the metric of the highest weight, no longer holds a pass back.
func TestSpreadLowersWeight(t *testing.T) {
	noisyBase := []float64{1, 1.5, 2, 3, 4, 5, 6, 7}
	noisyCand := []float64{1.1, 1.4, 2.1, 2.9, 4.1, 5, 5.9, 7.1}
	r := abResults(seq(1.4, 0.01, 8), seq(1.4, 0.01, 8),
		results.ABMetric{Metric: results.MetricTTFMR, MinEffect: 0.2, Weight: 3},
		results.ABMetric{Metric: results.MetricChangeLatencyP95, MinEffect: 0.2, Weight: 1})
	for i := range r.Strategies[0].Runs {
		b, c := noisyBase[i], noisyCand[i]
		r.Strategies[0].Runs[i].ChangeLatency.P95 = b
		r.Strategies[0].Runs[i].ChangeLatency.Count = 1
		r.Strategies[1].Runs[i].ChangeLatency.P95 = c
		r.Strategies[1].Runs[i].ChangeLatency.Count = 1
	}
	out, err := EvaluateAB(r)
	if err != nil {
		t.Fatal(err)
	}
	ttfmr, p95 := out.Checks[0], out.Checks[1]
	if ttfmr.Weight != 3 || !ttfmr.Required {
		t.Errorf("ttfmr weight %g required %v, want 3 and required", ttfmr.Weight, ttfmr.Required)
	}
	if !(p95.Resolution < 1 && p95.Weight < 1 && !p95.Required) || p95.Verdict != Inconclusive {
		t.Errorf("p95: resolution %g weight %g required %v verdict %s, want demoted and inconclusive", p95.Resolution, p95.Weight, p95.Required, p95.Verdict)
	}
	if out.Verdict != Pass {
		t.Errorf("comparison %s (%s), want a pass: the noisy check looks no worse", out.Verdict, out.Reason)
	}
	var table strings.Builder
	writeABVerdict(&table, out)
	if !strings.Contains(table.String(), "Weight: change_latency_p95_seconds weighs") {
		t.Errorf("the output does not say why the weight is lower:\n%s", table.String())
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
	for _, want := range []string{"A/B METRIC", "ttfmr_seconds", "1.575 [", "3.15 [", "×2 [", "+1.575 [", "FAIL: +100%", "A/B verdict: FAIL after 8 + 8 runs (look 1 of 1)", "Decided by: ttfmr_seconds failed: +100%"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var junit strings.Builder
	if err := WriteJUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`name="ab/ttfmr_seconds"`, `time="3.150"`, `<property name="level"`, `<property name="ab.verdict" value="FAIL"`, `<property name="ab.decided" value="ttfmr_seconds failed: +100%`, `<property name="candidate" value="2.8 2.9`, `failures="1"`, `type="regression"`} {
		if !strings.Contains(junit.String(), want) {
			t.Errorf("junit lacks %q:\n%s", want, junit.String())
		}
	}
}

// TestSaturatedMachine: runs on a saturated machine turn a pass into an inconclusive, named in the
// reason, and leave a failure standing.
func TestSaturatedMachine(t *testing.T) {
	r := abResults(seq(1.4, 0.05, 8), seq(1.41, 0.05, 8))
	b, _ := abRuns(r, "s-baseline")
	c, _ := abRuns(r, "s")
	all := ABOptions{Saturated: func(results.Summary) bool { return true }}
	out, err := JudgeAB(r.AB, b, c, all)
	if err != nil || out.Verdict != Inconclusive || !strings.Contains(out.Reason, "saturated in 16 of 16 runs") {
		t.Errorf("A/A on a saturated machine: %v %q (%v), want inconclusive naming the saturated runs", out.Verdict, out.Reason, err)
	}
	r = abResults(seq(1.4, 0.05, 8), seq(2.8, 0.1, 8))
	b, _ = abRuns(r, "s-baseline")
	c, _ = abRuns(r, "s")
	if out, _ := JudgeAB(r.AB, b, c, all); out.Verdict != Fail {
		t.Errorf("2x on a saturated machine: %v, want FAIL", out.Verdict)
	}
}

// TestPassOutOfReach: the gate knows when more runs on a saturated machine cannot bring a pass
// (more than a quarter of the plan's every run would stay saturated), says so, and not before.
func TestPassOutOfReach(t *testing.T) {
	r := abResults(seq(1.4, 0.05, 8), seq(1.41, 0.05, 8))
	r.AB.Block, r.AB.MaxRepeats = 4, 24
	b, _ := abRuns(r, "s-baseline")
	c, _ := abRuns(r, "s")
	for _, tc := range []struct {
		saturated int // of the 16 runs, in run order
		want      bool
	}{{16, true}, {13, true}, {12, false}, {4, false}, {0, false}} {
		n := 0
		opts := ABOptions{Saturated: func(results.Summary) bool { n++; return n <= tc.saturated }}
		out, err := JudgeAB(r.AB, b, c, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.PassOutOfReach(); got != tc.want || out.Saturated != tc.saturated {
			t.Errorf("%d of 16 runs saturated, plan up to 24 + 24: out of reach %v (%d counted), want %v", tc.saturated, got, out.Saturated, tc.want)
		}
		if says := strings.Contains(out.Reason, "more runs cannot pass it"); says != tc.want {
			t.Errorf("%d of 16 runs saturated: reason %q, want the out-of-reach note %v", tc.saturated, out.Reason, tc.want)
		}
	}
	// A decided outcome is never out of reach: a fail stands on a saturated machine.
	r = abResults(seq(1.4, 0.05, 8), seq(2.8, 0.1, 8))
	r.AB.Block, r.AB.MaxRepeats = 4, 24
	b, _ = abRuns(r, "s-baseline")
	c, _ = abRuns(r, "s")
	out, _ := JudgeAB(r.AB, b, c, ABOptions{Saturated: func(results.Summary) bool { return true }})
	if out.Verdict != Fail || out.PassOutOfReach() {
		t.Errorf("2x, all saturated: %v, out of reach %v; want FAIL, false", out.Verdict, out.PassOutOfReach())
	}
}

// Two runs a side rule nothing out, however close they are: the check is inconclusive for too few
// runs, not a pass.
func TestABTooFewRunsNeverPass(t *testing.T) {
	c := ABCheck{Metric: results.ABMetric{Metric: "ttfmr_seconds", MinEffect: 0.2}, Level: 0.015, RejectedAt: -1,
		BaselineMedian: Interval{Center: 5}, CandidateMedian: Interval{Center: 4.9},
		Ratio: Interval{Center: 0.98, Lo: 0.95, Hi: 1.01}, Diff: Interval{Center: -0.1, Lo: -0.2, Hi: 0.05}, P: 0.67}
	judgeAB(&c, 2)
	if c.Verdict != Inconclusive || !strings.Contains(c.Reason, "too few runs") {
		t.Errorf("2 + 2 runs: %s (%s), want inconclusive for too few runs", c.Verdict, c.Reason)
	}
	judgeAB(&c, 8)
	if c.Verdict != Pass {
		t.Errorf("8 + 8 runs with the interval below the tolerance: %s (%s), want pass", c.Verdict, c.Reason)
	}
}

// The gate reads each run's machine: an A/A comparison that passes on a quiet machine is
// inconclusive when most of its runs were saturated, and says so.
func TestEvaluateABReadsTheRunsMachines(t *testing.T) {
	r := abResults(seq(1.4, 0.05, 8), seq(1.41, 0.05, 8))
	if out, err := EvaluateAB(r); err != nil || out.Verdict != Pass {
		t.Fatalf("A/A, machine not measured: %v (%v), want pass", out.Verdict, err)
	}
	for i := range r.Strategies {
		for j := range r.Strategies[i].Runs {
			r.Strategies[i].Runs[j].Machine = &results.Machine{Saturated: j%4 != 0}
		}
	}
	out, err := EvaluateAB(r)
	if err != nil || out.Verdict != Inconclusive || !strings.Contains(out.Reason, "saturated in 12 of 16 runs") {
		t.Errorf("A/A with 12 of 16 runs saturated: %v %q (%v), want inconclusive naming them", out.Verdict, out.Reason, err)
	}
	// A load does not stretch memory: the same figures as a peak heap stand on a saturated machine.
	r.AB.Metrics = []results.ABMetric{{Metric: results.MetricRestartPeakHeap, MinEffect: 0.2}}
	for i := range r.Strategies {
		for j := range r.Strategies[i].Runs {
			sum := &r.Strategies[i].Runs[j]
			sum.Memory = &results.Memory{Restart: &results.RestartMemory{PeakHeapInuseBytes: ptr.To(int64(*sum.TTFMRSeconds * 1e8))}}
		}
	}
	if out, err := EvaluateAB(r); err != nil || out.Verdict != Pass {
		t.Errorf("peak heap A/A with 12 of 16 runs saturated: %v %q (%v), want pass", out.Verdict, out.Reason, err)
	}
}

// A run whose percentile is only a lower bound (a change it never applied) ranks after every run
// that applied its changes, as a run that never measured the metric does.
func TestMetricSampleRanksLowerBoundsLast(t *testing.T) {
	exact := results.Summary{BlindTime: results.Quantiles{Count: 3, P50: 40}}
	bound := results.Summary{BlindTime: results.Quantiles{Count: 3, Censored: 2, P50: 5, P50Censored: true}}
	got, seen := metricSample([]results.Summary{bound, exact}, results.MetricBlindTimeP50)
	if !seen || got[0] != 40 || !math.IsInf(got[1], 1) {
		t.Errorf("sample %v (seen %v), want [40 +Inf]", got, seen)
	}
}
