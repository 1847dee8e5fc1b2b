package gate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"golang.org/x/perf/benchmath"

	"github.com/restartsim/restartsim/reports/results"
)

// ABCheck is one metric compared between the two sides of an A/B run.
type ABCheck struct {
	Metric results.ABMetric
	// Baseline and Candidate are the metric in each run (+Inf where the run never reached the event
	// it measures, e.g. a change never applied), sorted.
	Baseline, Candidate []float64
	// BaselineMedian and CandidateMedian with their 95 % confidence intervals (benchmath's
	// order-statistic intervals, which assume nothing of the distribution).
	BaselineMedian, CandidateMedian Interval
	// Ratio is CandidateMedian ÷ BaselineMedian, with a 95 % bootstrap interval.
	Ratio Interval
	// P is the two-sided Mann–Whitney U test's p-value; PAdjusted is adjusted over every compared
	// metric by the weighted Holm procedure (Holm–Bonferroni when the weights are equal).
	P, PAdjusted float64
	Alpha        float64
	Verdict      Verdict
	Reason       string
	// Skipped is set when neither side measured the metric (e.g. CPU of in-process controllers).
	Skipped bool
}

// Interval is a point estimate with its confidence interval.
type Interval struct{ Center, Lo, Hi float64 }

// Name identifies the check in the gate's output.
func (c ABCheck) Name() string { return "ab/" + c.Metric.Metric }

// confidence of the reported intervals.
const confidence = 0.95

// bootstrapResamples is the number of resamples behind the ratio's interval; the generator is
// seeded, so a results.json always gives the same interval.
const bootstrapResamples = 4000

// EvaluateAB compares the A/B sides of r on every metric of r.AB. A metric fails only when the
// candidate is worse with significance (Holm-adjusted p below Alpha) and by more than the metric's
// minimum effect, relative and absolute. It returns an error for bad input: no A/B section, a side
// missing, or too few runs for the test to reject at all.
func EvaluateAB(r *results.Results) ([]ABCheck, error) {
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
	tested := 0
	checks := make([]ABCheck, len(ab.Metrics))
	for i, m := range ab.Metrics {
		c := ABCheck{Metric: m, Alpha: ab.Alpha, Verdict: Pass}
		var seenB, seenC bool
		c.Baseline, seenB = metricSample(base, m.Metric)
		c.Candidate, seenC = metricSample(cand, m.Metric)
		if !seenB && !seenC {
			c.Skipped, c.Reason = true, "not measured for this controller"
		} else {
			tested++
		}
		checks[i] = c
	}
	if tested == 0 {
		return checks, nil
	}
	if minP, need := minUTestP(len(base), len(cand)), firstLevel(checks, ab.Alpha); minP >= need {
		return nil, fmt.Errorf("gate: %d + %d runs are too few: the Mann–Whitney test cannot go below p = %.3g, and %d metrics at a family-wise alpha of %g need p < %.3g for the least weighted; raise ab.repeats",
			len(base), len(cand), minP, tested, ab.Alpha, need)
	}
	thr := &benchmath.Thresholds{CompareAlpha: ab.Alpha}
	for i := range checks {
		c := &checks[i]
		if c.Skipped {
			continue
		}
		sb, sc := benchmath.NewSample(c.Baseline, thr), benchmath.NewSample(c.Candidate, thr)
		c.BaselineMedian = summary(sb)
		c.CandidateMedian = summary(sc)
		c.P = benchmath.AssumeNothing.Compare(sb, sc).P
		c.Ratio = ratioInterval(c.Baseline, c.Candidate, int64(i))
	}
	holm(checks)
	for i := range checks {
		if !checks[i].Skipped {
			judgeAB(&checks[i])
		}
	}
	return checks, nil
}

func abRuns(r *results.Results, name string) ([]results.Summary, error) {
	s, ok := r.Strategy(name)
	if !ok {
		return nil, fmt.Errorf("gate: A/B side %q is missing from the results", name)
	}
	if len(s.Runs) == 0 {
		return []results.Summary{s.Summary}, nil
	}
	return s.Runs, nil
}

// metricSample is the metric in every run, +Inf where a run lacks it; false when no run has it.
func metricSample(runs []results.Summary, metric string) ([]float64, bool) {
	out := make([]float64, len(runs))
	seen := false
	for i := range runs {
		if v, ok := runs[i].Metrics()[metric]; ok {
			out[i], seen = v, true
		} else {
			out[i] = math.Inf(1)
		}
	}
	sort.Float64s(out)
	return out, seen
}

// summary is the sample's median with benchmath's interval (the median itself computed here, so
// that runs at +Inf give +Inf rather than NaN).
func summary(s *benchmath.Sample) Interval {
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	return Interval{Center: median(s.Values), Lo: sum.Lo, Hi: sum.Hi}
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

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	a, b := sorted[n/2-1], sorted[n/2]
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return math.Max(a, b)
	}
	return (a + b) / 2
}

// ratioInterval is the ratio of medians with a percentile bootstrap interval (resampling each side
// with replacement), seeded by seed.
func ratioInterval(base, cand []float64, seed int64) Interval {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	rs := make([]float64, bootstrapResamples)
	b, c := make([]float64, len(base)), make([]float64, len(cand))
	for i := range rs {
		for j := range b {
			b[j] = base[rng.IntN(len(base))]
		}
		for j := range c {
			c[j] = cand[rng.IntN(len(cand))]
		}
		sort.Float64s(b)
		sort.Float64s(c)
		rs[i] = ratio(median(b), median(c))
	}
	sort.Float64s(rs)
	q := func(p float64) float64 { return rs[min(len(rs)-1, int(p*float64(len(rs))))] }
	return Interval{Center: ratio(median(base), median(cand)), Lo: q((1 - confidence) / 2), Hi: q((1 + confidence) / 2)}
}

// firstLevel is the smallest level a tested check must reach for the weighted Holm procedure to
// reject it at all: alpha times its weight's share of every tested check's.
func firstLevel(checks []ABCheck, alpha float64) float64 {
	total, least := 0.0, math.Inf(1)
	for _, c := range checks {
		if !c.Skipped {
			w := c.Metric.AlphaWeight()
			total += w
			least = math.Min(least, w)
		}
	}
	return alpha * least / total
}

// holm sets PAdjusted by the weighted Holm step-down (Holm 1979) over the checks that were
// tested: ordered by p ÷ weight, the k-th is multiplied by the weights left (its own and those
// after it) over its weight, and adjusted values are kept monotone. With equal weights this is
// Holm–Bonferroni: the i-th smallest of m p-values times m−i.
func holm(checks []ABCheck) {
	var idx []int
	left := 0.0
	for i := range checks {
		if !checks[i].Skipped {
			idx = append(idx, i)
			left += checks[i].Metric.AlphaWeight()
		}
	}
	q := func(i int) float64 { return checks[i].P / checks[i].Metric.AlphaWeight() }
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case q(a) < q(b):
			return -1
		case q(a) > q(b):
			return 1
		}
		return 0
	})
	running := 0.0
	for _, i := range idx {
		running = math.Max(running, math.Min(1, q(i)*left))
		checks[i].PAdjusted = running
		left -= checks[i].Metric.AlphaWeight()
	}
}

// judgeAB sets the verdict: a failure needs significance and an effect above both minimums.
func judgeAB(c *ABCheck) {
	b, cand := c.BaselineMedian.Center, c.CandidateMedian.Center
	significant := c.PAdjusted < c.Alpha
	limit := c.Limit()
	switch {
	case significant && cand > limit:
		c.Verdict = Fail
		c.Reason = fmt.Sprintf("%s slower/costlier than the baseline (×%s, interval ×%s–%s), significant (p = %.2g after Holm < %g) and above the minimum effect (+%.0f%% and +%s)",
			change(b, cand), format(c.Ratio.Center), format(c.Ratio.Lo), format(c.Ratio.Hi), c.PAdjusted, c.Alpha, c.Metric.MinEffect*100, format(c.Metric.MinDelta))
	case significant && cand < b:
		c.Verdict = Improved
		c.Reason = fmt.Sprintf("%s vs baseline (p = %.2g after Holm)", change(b, cand), c.PAdjusted)
	case significant:
		c.Reason = fmt.Sprintf("%s vs baseline: significant (p = %.2g) but within the minimum effect", change(b, cand), c.PAdjusted)
	default:
		c.Reason = fmt.Sprintf("%s vs baseline: not significant (p = %.2g after Holm)", change(b, cand), c.PAdjusted)
	}
}

// Limit is the largest candidate median that passes whatever the p-value.
func (c ABCheck) Limit() float64 {
	base := c.BaselineMedian.Center
	return math.Max(base*(1+c.Metric.MinEffect), base+c.Metric.MinDelta)
}
