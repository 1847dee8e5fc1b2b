package gate

import (
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/perf/benchmath"

	"github.com/restartsim/restartsim/results"
)

func TestScheduleRuns(t *testing.T) {
	s := Schedule{Initial: 8, Block: 4, Max: 22}
	want := []int{8, 12, 16, 20, 22}
	if s.Looks() != len(want) {
		t.Fatalf("looks %d, want %d", s.Looks(), len(want))
	}
	for k, n := range want {
		if got := s.Runs(k); got != n {
			t.Errorf("look %d: %d runs, want %d", k, got, n)
		}
	}
	if got := (Schedule{Initial: 8, Block: 4, Max: 8}).Looks(); got != 1 {
		t.Errorf("a plan without room for a block has %d looks, want 1", got)
	}
}

// TestNominalLevelsOneLook: a single look at the full information spends all of alpha.
func TestNominalLevelsOneLook(t *testing.T) {
	for _, a := range []float64{0.05, 0.01, 0.0167} {
		if got := nominalLevels(a, []float64{1})[0]; math.Abs(got-a) > 1e-9 {
			t.Errorf("alpha %g: level %g", a, got)
		}
	}
}

// TestNominalLevelsSpendAlpha checks the boundaries against Brownian motion directly: paths of
// independent normal increments at the looks' information fractions cross the boundaries with
// the spent probability at each look, and in all with alpha.
func TestNominalLevelsSpendAlpha(t *testing.T) {
	plan := Schedule{Initial: 8, Block: 4, Max: 32}
	fr := plan.fractions()
	const alpha = 0.05
	lv := nominalLevels(alpha, fr)
	for k := 1; k < len(lv); k++ {
		// Looks after the first get less than their share alone, but more than Bonferroni's split.
		if !(lv[k] > spent(alpha, fr[k])-spent(alpha, fr[k-1])) {
			t.Errorf("look %d: level %g not above its spent increment", k, lv[k])
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const paths = 200000
	crossedAt := make([]int, len(fr))
	for range paths {
		s, prev := 0.0, 0.0
		for k, f := range fr {
			s += rng.NormFloat64() * math.Sqrt(f-prev)
			prev = f
			if 2*normSF(math.Abs(s)/math.Sqrt(f)) <= lv[k] {
				crossedAt[k]++
				break
			}
		}
	}
	total, prevSpent := 0, 0.0
	for k, c := range crossedAt {
		total += c
		want := spent(alpha, fr[k]) - prevSpent
		prevSpent = spent(alpha, fr[k])
		got := float64(c) / paths
		// 4 binomial standard errors.
		if se := math.Sqrt(want * (1 - want) / paths); math.Abs(got-want) > 4*se+2e-4 {
			t.Errorf("look %d: crossed in %.4f of paths, want %.4f", k, got, want)
		}
	}
	if got := float64(total) / paths; math.Abs(got-alpha) > 0.002 {
		t.Errorf("crossed at any look in %.4f of paths, want %g", got, alpha)
	}
}

// TestSequentialHolm: a clear rejection at the first look passes its share of alpha on, so a
// second hypothesis that would miss its own share is rejected with the whole of alpha.
func TestSequentialHolm(t *testing.T) {
	plan := Schedule{Initial: 8, Block: 4, Max: 8}
	one := planLevels(0.05, plan)[0]
	half := planLevels(0.025, plan)[0]
	p := [][]float64{{1e-5}, {(one + half) / 2}, {0.9}}
	rej, _ := sequentialHolm(p, []float64{1, 1, 1}, 0.05, plan)
	// With three hypotheses the second needs 0.025 once the first is out, then 0.05 with the third
	// left: its p sits between 0.025's and 0.05's levels — not rejected, as the third is not.
	if rej[0] != 0 || rej[1] != -1 || rej[2] != -1 {
		t.Errorf("rejected at %v, want [0 -1 -1]", rej)
	}
	rej, _ = sequentialHolm(p[:2], []float64{1, 1}, 0.05, plan)
	if rej[0] != 0 || rej[1] != 0 {
		t.Errorf("two hypotheses: rejected at %v, want [0 0]", rej)
	}
	// A rejection at look 2 is found from the p-values of every look so far.
	plan = Schedule{Initial: 8, Block: 4, Max: 16}
	rej, lv := sequentialHolm([][]float64{{0.2, 1e-6, 0.5}}, []float64{1}, 0.05, plan)
	if rej[0] != 1 || lv[0] <= 0 {
		t.Errorf("rejected at %v (level %v), want look 1", rej, lv)
	}
}

// simModel draws a run's summary: TTFMR log-normal around 1.4 s (relative IQR about 0.2, as on a
// quiet machine) times shift, change-latency p95 far noisier, controller CPU tight.
func simModel(rng *rand.Rand, shift float64) results.Summary {
	ttfmr := shift * 1.4 * math.Exp(0.15*rng.NormFloat64())
	cpu := 0.5 + 0.03*rng.NormFloat64()
	s := results.Summary{TTFMRSeconds: &ttfmr, ControllerCPUSecondsBeforeFirstMeaningful: &cpu}
	s.ChangeLatency.Count, s.ChangeLatency.P95 = 5, shift*math.Exp(0.6*rng.NormFloat64())
	return s
}

func simAB() *results.AB {
	return &results.AB{Baseline: "b", Candidate: "c", Alpha: 0.05, Repeats: 8, Block: 4, MaxRepeats: 24, Metrics: []results.ABMetric{
		{Metric: results.MetricTTFMR, MinEffect: 0.2, MinDelta: 0.1, Weight: 3},
		{Metric: results.MetricChangeLatencyP95, MinEffect: 0.2, MinDelta: 0.1, Weight: 1},
		{Metric: results.MetricControllerCPUBeforeFirst, MinEffect: 0.2, MinDelta: 0.05, Weight: 1},
	}}
}

// simulate runs the sequential gate on draws of the model, the candidate's TTFMR and latency
// shifted by shift, and counts its verdicts and the look it stopped at.
func simulate(t *testing.T, draws int, shift float64, seed uint64) (verdicts map[Verdict]int, firstLook int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	verdicts = map[Verdict]int{}
	for range draws {
		next := func(int) (results.Summary, results.Summary) { return simModel(rng, 1), simModel(rng, shift) }
		out, err := Sequence(simAB(), next, func(*ABOutcome) bool { return true }, ABOptions{})
		if err != nil {
			t.Fatal(err)
		}
		verdicts[out.Verdict]++
		if out.Look == 0 {
			firstLook++
		}
	}
	return verdicts, firstLook
}

// TestSequentialGateSimulation: many A/A comparisons drawn from one fixed distribution fail at
// most 5 % of the time over every look, and a 2× shift fails nearly always, mostly at the first
// look. Seeded, so it gives the same counts every run.
func TestSequentialGateSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("judges 800 simulated gate runs")
	}
	aa, _ := simulate(t, 500, 1, 1)
	t.Logf("A/A: %v of 500", aa)
	if rate := float64(aa[Fail]) / 500; rate > 0.05 {
		t.Errorf("A/A false alarms %.1f %%, want ≤ 5 %%", rate*100)
	}
	if aa[Pass] < 400 {
		t.Errorf("A/A passed %d of 500: the tolerance is rarely reached on a quiet model", aa[Pass])
	}
	twice, early := simulate(t, 300, 2, 2)
	t.Logf("2x: %v of 300, %d at the first look", twice, early)
	if twice[Fail] < 297 || twice[Pass] > 0 {
		t.Errorf("2x failed %d of 300 (passed %d), want ≥ 99 %% and none passed", twice[Fail], twice[Pass])
	}
	if early < 270 {
		t.Errorf("2x stopped at the first look %d of 300 times, want ≥ 90 %%", early)
	}
}

// TestSequentialRuleAlpha: the rejection rule alone, always run to its last look (no early stop
// to help it), rejects a true null on any of three metrics in at most alpha of A/A draws.
func TestSequentialRuleAlpha(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ab := simAB()
	plan := ABPlan(ab)
	const draws = 3000
	rejections := 0
	for range draws {
		var base, cand []results.Summary
		for range plan.Runs(plan.Looks() - 1) {
			base, cand = append(base, simModel(rng, 1)), append(cand, simModel(rng, 1))
		}
		p := make([][]float64, len(ab.Metrics))
		for i, m := range ab.Metrics {
			for k := range plan.Looks() {
				b, _ := metricSample(base[:plan.Runs(k)], m.Metric)
				c, _ := metricSample(cand[:plan.Runs(k)], m.Metric)
				p[i] = append(p[i], benchmath.AssumeNothing.Compare(benchmath.NewSample(b, &benchmath.Thresholds{}), benchmath.NewSample(c, &benchmath.Thresholds{})).P)
			}
		}
		rej, _ := sequentialHolm(p, []float64{3, 1, 1}, ab.Alpha, plan)
		for _, r := range rej {
			if r >= 0 {
				rejections++
				break
			}
		}
	}
	rate := float64(rejections) / draws
	t.Logf("A/A rejected on some metric at some look in %.2f %% of %d draws", rate*100, draws)
	if rate > ab.Alpha {
		t.Errorf("family-wise rejection rate %.3f over five looks, want ≤ %g", rate, ab.Alpha)
	}
}

// TestSequenceStops: the sequence stops at a look the budget refuses to extend, and at the plan's
// last look, with the runs of that look judged.
func TestSequenceStops(t *testing.T) {
	// Both sides alike and spread evenly over two orders of magnitude: never decided.
	next := func(i int) (results.Summary, results.Summary) {
		spread := func(u float64) *float64 { _, f := math.Modf(u); v := 0.1 * math.Pow(100, f); return &v }
		return results.Summary{TTFMRSeconds: spread(float64(i) * 0.618)}, results.Summary{TTFMRSeconds: spread(0.5 + float64(i)*0.382)}
	}
	noisy := simAB()
	noisy.Metrics = noisy.Metrics[:1]
	looks := 0
	out, err := Sequence(noisy, next, func(*ABOutcome) bool { looks++; return false }, ABOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Inconclusive || out.Runs != 8 || looks != 1 {
		t.Errorf("budget refused: %s after %d runs and %d looks, want inconclusive after 8 and 1", out.Verdict, out.Runs, looks)
	}
	out, err = Sequence(noisy, next, func(*ABOutcome) bool { return true }, ABOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Inconclusive || out.Runs != 24 || out.Look != 4 {
		t.Errorf("%s at %d runs, look %d: want inconclusive at the plan's last, 24 and 4", out.Verdict, out.Runs, out.Look)
	}
	// Alike runs all on a saturated machine: a pass is out of reach at the first look.
	alike := func(i int) (results.Summary, results.Summary) {
		v := 1 + 0.01*float64(i)
		return results.Summary{TTFMRSeconds: &v}, results.Summary{TTFMRSeconds: &v}
	}
	all := ABOptions{Saturated: func(results.Summary) bool { return true }}
	out, err = Sequence(noisy, alike, func(*ABOutcome) bool { return true }, all)
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Inconclusive || out.Runs != 8 || !out.PassOutOfReach() {
		t.Errorf("saturated A/A: %s at %d runs (%s), want inconclusive at the first look, 8, with a pass out of reach", out.Verdict, out.Runs, out.Reason)
	}
}
