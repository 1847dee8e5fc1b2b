package gate

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"golang.org/x/perf/benchmath"

	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/results"
)

// ABCheck is one metric compared between the two sides of an A/B run, at the gate's last look.
type ABCheck struct {
	Metric results.ABMetric
	// Baseline and Candidate are the metric in each run judged (+Inf where the run never reached
	// the event it measures, e.g. a change never applied), sorted.
	Baseline, Candidate []float64
	// BaselineMedian and CandidateMedian with their 95 % confidence intervals (benchmath's
	// order-statistic intervals, which assume nothing of the distribution).
	BaselineMedian, CandidateMedian Interval
	// Ratio and Diff are the candidate's shift from the baseline, as a ratio and as a difference:
	// the Hodges–Lehmann estimates (the median over every pair of a baseline and a candidate run)
	// with the 95 % intervals of the Mann–Whitney test (see shiftIntervals).
	Ratio, Diff Interval
	// P is the two-sided Mann–Whitney U test's p-value at the last look; Level is the nominal level
	// it is tested at there (the group-sequential boundary for the check's share of alpha, after
	// weighted Holm). RejectedAt is the look (0-based) whose p-value crossed its boundary, −1 none.
	P, Level   float64
	RejectedAt int
	Alpha      float64
	// Weight is the check's share of alpha as used: its configured weight times its resolution
	// when that is below 1 (see Resolution), but never below a tenth of it.
	Weight float64
	// Resolution is the tolerance over the 95 % interval's expected half-width at the plan's most
	// runs, from the first look's spread within each side: below 1 the check cannot be expected to
	// rule out a regression within the plan.
	Resolution float64
	// Required: the gate passes only when this check does. Every check is, but one whose
	// Resolution is below 1 and whose configured weight is not the highest (the metric the gate is
	// for stays required).
	Required bool
	Verdict  Verdict
	Reason   string
	// Skipped is set when neither side measured the metric (e.g. CPU of in-process controllers).
	Skipped bool
}

// Interval is a point estimate with its confidence interval.
type Interval struct{ Center, Lo, Hi float64 }

// Name identifies the check in the gate's output.
func (c ABCheck) Name() string { return "ab/" + c.Metric.Metric }

// confidence of the reported intervals.
const confidence = 0.95

// halfWidthFactor turns a sample's IQR into the expected half-width of the 95 % interval of a
// difference of two medians of n runs each, times √n: 1.96 × √2 × 1.2533 (the median's
// standard error over the standard deviation, for normal data) ÷ 1.349 (IQR over the standard
// deviation).
const halfWidthFactor = 2.575

// minWeightShare is the least share of its configured weight a noisy check keeps, so that a clear
// regression on it can still fail the gate.
const minWeightShare = 0.1

// weightShare is the share of its configured weight a check keeps at a resolution: all of it at 1
// and above, else the resolution rounded down to a twentieth (so that a few alphas recur and their
// boundaries are computed once), never below minWeightShare.
func weightShare(res float64) float64 {
	if res >= 1 {
		return 1
	}
	return math.Max(minWeightShare, math.Floor(res*20)/20)
}

// ABOutcome is the gate's judgement of an A/B comparison at its last look.
type ABOutcome struct {
	Checks []ABCheck
	// Verdict is Fail when a check failed, Pass when every required check passed (and no other
	// one looks worse than its minimum effect), else Inconclusive.
	Verdict Verdict
	// Reason says why (for Inconclusive: too few runs, too much noise, a saturated machine) and
	// Advice what to do about an inconclusive verdict.
	Reason, Advice string
	// Look is the last look (0-based) and Runs the runs per side it judged; Plan the schedule.
	Look, Runs int
	Plan       Schedule
	// Decided names the checks that decided the verdict (a failed check, a check passed only by its
	// absolute floor, the required check closest to its limit); Undecided says, per inconclusive
	// check, why it is undecided and what would decide it.
	Decided, Undecided []string
	// Saturated counts the runs on a saturated machine (ABOptions.Saturated).
	Saturated int
	timed     bool // a duration was judged, which a loaded machine stretches
}

// ABOptions adjust the A/B judgement.
type ABOptions struct {
	// Saturated tells whether a run ran on a saturated machine; nil: unknown. Saturated runs are
	// counted in an inconclusive verdict's reason, and more than a quarter of them turn a pass
	// into an inconclusive when a duration (a *_seconds metric) is compared; a fail stands.
	Saturated func(results.Summary) bool
}

// ABPlan is the sequential schedule of ab: one look at Repeats for results without one.
func ABPlan(ab *results.AB) Schedule {
	return Schedule{Initial: ab.Repeats, Block: ab.Block, Max: max(ab.MaxRepeats, ab.Repeats)}
}

// EvaluateAB judges the A/B comparison of r as finished: every run the results hold, at the
// look of the plan they reached. It returns an error for bad input: no A/B section, a side
// missing.
func EvaluateAB(r *results.Results) (*ABOutcome, error) {
	ab := r.AB
	if ab == nil {
		return nil, errors.New("gate: the results hold no A/B comparison (scenario section ab)")
	}
	base, err := abRuns(r, ab.Baseline)
	if err != nil {
		return nil, err
	}
	cand, err := abRuns(r, ab.Candidate)
	if err != nil {
		return nil, err
	}
	return JudgeAB(ab, base, cand, ABOptions{Saturated: RanSaturated})
}

// JudgeAB judges the runs of each side so far, in the order they ran, at the last look of
// ab's plan that they reach: a check fails when its sequential test rejected (at any look so far)
// with the candidate worse and its median above the minimum effect; passes when its interval
// rules out a regression above the minimum effect; and is inconclusive otherwise.
func JudgeAB(ab *results.AB, base, cand []results.Summary, o ABOptions) (*ABOutcome, error) {
	plan := ABPlan(ab)
	n := min(len(base), len(cand))
	look := -1
	for k := 0; k < plan.Looks() && plan.Runs(k) <= n; k++ {
		look = k
	}
	out := &ABOutcome{Plan: plan, Look: max(look, 0), Runs: n}
	switch {
	case n < 2:
		return nil, fmt.Errorf("gate: %d + %d runs: the comparison needs two per side at least", len(base), len(cand))
	case look < 0:
		// The budget ended the first look's runs early: judged as the first look with fewer runs,
		// at its level (less information at the same level keeps the false-alarm rate).
		look = 0
	default:
		out.Runs = plan.Runs(look)
	}
	base, cand = base[:out.Runs], cand[:out.Runs]
	checks := make([]ABCheck, len(ab.Metrics))
	pvals := make([][]float64, len(ab.Metrics))
	weights := make([]float64, len(ab.Metrics))
	thr := &benchmath.Thresholds{CompareAlpha: ab.Alpha}
	maxWeight := 0.0
	for _, m := range ab.Metrics {
		maxWeight = math.Max(maxWeight, m.AlphaWeight())
	}
	for i, m := range ab.Metrics {
		c := ABCheck{Metric: m, Alpha: ab.Alpha, Verdict: Pass, RejectedAt: -1}
		var seenB, seenC bool
		c.Baseline, seenB = metricSample(base, m.Metric)
		c.Candidate, seenC = metricSample(cand, m.Metric)
		if !seenB && !seenC {
			c.Skipped, c.Reason = true, "not measured for this controller"
			checks[i] = c
			continue
		}
		first := min(plan.Runs(0), out.Runs)
		fb, _ := metricSample(base[:first], m.Metric)
		fc, _ := metricSample(cand[:first], m.Metric)
		c.Resolution = resolution(fb, fc, m, plan.Runs(plan.Looks()-1))
		c.Weight = m.AlphaWeight() * weightShare(c.Resolution)
		c.Required = c.Resolution >= 1 || m.AlphaWeight() == maxWeight
		weights[i] = c.Weight
		for k := 0; k <= look; k++ {
			b, _ := metricSample(base[:min(plan.Runs(k), out.Runs)], m.Metric)
			cd, _ := metricSample(cand[:min(plan.Runs(k), out.Runs)], m.Metric)
			pvals[i] = append(pvals[i], benchmath.AssumeNothing.Compare(benchmath.NewSample(b, thr), benchmath.NewSample(cd, thr)).P)
		}
		sb, sc := benchmath.NewSample(c.Baseline, thr), benchmath.NewSample(c.Candidate, thr)
		c.BaselineMedian, c.CandidateMedian = summary(sb), summary(sc)
		c.P = pvals[i][look]
		c.Ratio, c.Diff = shiftIntervals(c.Baseline, c.Candidate)
		checks[i] = c
	}
	rejected, levels := sequentialHolm(pvals, weights, ab.Alpha, plan)
	for i := range checks {
		if checks[i].Skipped {
			continue
		}
		checks[i].RejectedAt, checks[i].Level = rejected[i], levels[i]
		judgeAB(&checks[i], out.Runs)
	}
	out.Checks = checks
	out.decide(base, cand, o)
	return out, nil
}

// resolution is the tolerance at the baseline's median over the expected half-width of the
// difference's 95 % interval at maxRuns per side, from each side's spread (the mean of their IQRs:
// a shift between the sides, the regression itself, must not count as spread). +Inf for samples
// without spread, 0 for a spread that runs to +Inf.
func resolution(base, cand []float64, m results.ABMetric, maxRuns int) float64 {
	iqr := (iqrOf(base) + iqrOf(cand)) / 2
	switch {
	case iqr == 0:
		return math.Inf(1)
	case math.IsInf(iqr, 0) || math.IsNaN(iqr):
		return 0
	}
	return tolerance(m, stats.Median(base)) * math.Sqrt(float64(maxRuns)) / (halfWidthFactor * iqr)
}

// iqrOf is a sorted sample's interquartile range (nearest ranks).
func iqrOf(sorted []float64) float64 {
	q := func(p float64) float64 { return sorted[int(math.Round(p*float64(len(sorted)-1)))] }
	return q(0.75) - q(0.25)
}

// tolerance is the largest increase over a baseline median of base that is not a regression: the
// relative minimum effect, or the absolute one when that is smaller, and never below MinDelta.
func tolerance(m results.ABMetric, base float64) float64 {
	t := base * m.MinEffect
	if m.AbsEffect > 0 {
		t = math.Min(t, m.AbsEffect)
	}
	return math.Max(t, m.MinDelta)
}

func abRuns(r *results.Results, name string) ([]results.Summary, error) {
	s, ok := r.Strategy(name)
	if !ok {
		return nil, fmt.Errorf("gate: A/B side %q is missing from the results", name)
	}
	runs := s.Runs
	if len(runs) == 0 {
		runs = []results.Summary{s.Summary}
	}
	for i := range runs {
		for _, m := range r.AB.Metrics {
			if v, ok := runs[i].Metrics()[m.Metric]; ok {
				if err := checkValue(fmt.Sprintf("%s (run %d)", name, i+1), m.Metric, v); err != nil {
					return nil, fmt.Errorf("gate: %w", err)
				}
			}
		}
	}
	return runs, nil
}

// metricSample is the metric in every run, sorted, stats.Missing (+Inf) where a run lacks it; false
// when no run has it.
func metricSample(runs []results.Summary, metric string) ([]float64, bool) {
	out := make([]float64, len(runs))
	seen := false
	for i := range runs {
		switch v, ok := runs[i].Metrics()[metric]; {
		case ok && runs[i].LowerBounds()[metric]:
			// A run's change never applied: it ranks after every run that applied its changes.
			out[i], seen = stats.Missing, true
		case ok:
			out[i], seen = v, true
		default:
			out[i] = stats.Missing
		}
	}
	sort.Float64s(out)
	return out, seen
}

// summary is the sample's median with benchmath's interval (the median itself computed here, so
// that runs at +Inf give +Inf rather than NaN).
func summary(s *benchmath.Sample) Interval {
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	return Interval{Center: stats.Median(s.Values), Lo: sum.Lo, Hi: sum.Hi}
}

// minUTestP is the smallest two-sided p-value the Mann–Whitney U test can give for samples of
// sizes n1 and n2 (no ties): both orderings of complete separation out of C(n1+n2, n1).
func minUTestP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	// log C(n1+n2, n1) via lgamma, exact enough for any repeat count.
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Min(1, 2/math.Exp(lg(n1+n2)-lg(n1)-lg(n2)))
}

// ratio is the candidate's median over the baseline's, defined for zero and infinite medians.
func ratio(base, cand float64) float64 {
	switch {
	case base == cand:
		return 1
	case base == 0 || math.IsInf(cand, 1):
		return math.Inf(1)
	case math.IsInf(base, 1):
		return 0
	}
	return cand / base
}
