package gate

import (
	"fmt"
	"math"
	"strings"

	"github.com/restartsim/restartsim/results"
)

// Inconclusive is the verdict of a check, or of the whole A/B comparison, whose data neither
// show a regression nor rule one out.
const Inconclusive Verdict = "INCONCLUSIVE"

// Limit is the largest candidate median that is not a regression: the baseline's median plus
// the tolerance (the minimum effect).
func (c ABCheck) Limit() float64 {
	base := c.BaselineMedian.Center
	return base + tolerance(c.Metric, base)
}

// ruledOut reports whether the intervals exclude every regression above the minimum effect:
// the difference's upper end within MinDelta, or the ratio's within 1 + MinEffect and the
// difference's within AbsEffect.
func (c ABCheck) ruledOut() bool { return c.withinTolerance(c.Ratio.Hi, c.Diff.Hi) }

// aboveTolerance reports whether the shift's estimate is a regression above the minimum effect.
func (c ABCheck) aboveTolerance() bool { return !c.withinTolerance(c.Ratio.Center, c.Diff.Center) }

// withinTolerance reports whether a shift of ratio r and difference d is no regression above the
// minimum effect: d within MinDelta, or r within 1 + MinEffect and d within AbsEffect.
func (c ABCheck) withinTolerance(r, d float64) bool {
	m := c.Metric
	if d <= m.MinDelta {
		return true
	}
	return r <= 1+m.MinEffect && d <= c.absEffect()
}

// absEffect is the largest difference the minimum effect allows beside its ratio: the metric's
// absolute effect, unbounded when it has none.
func (c ABCheck) absEffect() float64 {
	if c.Metric.AbsEffect <= 0 {
		return math.Inf(1)
	}
	return c.Metric.AbsEffect
}

// toleranceText names the minimum effect: "+20%", "+20% or +1 s".
func toleranceText(m results.ABMetric) string {
	s := fmt.Sprintf("+%.0f%%", m.MinEffect*100)
	if m.AbsEffect > 0 {
		s += " or +" + format(m.AbsEffect)
		if strings.HasSuffix(m.Metric, "_seconds") {
			s += " s"
		}
	}
	return s
}

// shiftText is the shift's estimate as a change: "+24%", or "+3" when the ratio is not finite.
func (c ABCheck) shiftText() string {
	if r := c.Ratio.Center; !math.IsInf(r, 0) && !math.IsNaN(r) {
		return fmt.Sprintf("%+.0f%%", (r-1)*100)
	}
	return fmt.Sprintf("%+g", c.Diff.Center)
}

// judgeAB sets a tested check's verdict from its sequential test and its intervals.
func judgeAB(c *ABCheck, runs int) {
	rejected := c.RejectedAt >= 0
	worse := c.worse()
	ivs := fmt.Sprintf("×%s, interval ×%s–%s", format(c.Ratio.Center), format(c.Ratio.Lo), format(c.Ratio.Hi))
	sig := fmt.Sprintf("significant at look %d (p = %.2g ≤ %.2g)", c.RejectedAt+1, c.P, c.Level)
	// Ruling a regression out needs as many runs as the test needs to show one: at a handful of
	// runs the interval's end is an extreme run.
	enough := minUTestP(runs, runs) <= c.Level
	switch {
	case rejected && worse && c.aboveTolerance():
		c.Verdict = Fail
		c.Reason = fmt.Sprintf("%s slower/costlier than the baseline (%s), %s and above the minimum effect (%s)", c.shiftText(), ivs, sig, toleranceText(c.Metric))
	case rejected && !worse:
		c.Verdict = Improved
		c.Reason = fmt.Sprintf("%s vs baseline (%s), %s", c.shiftText(), ivs, sig)
	case enough && c.ruledOut() && rejected && c.FloorHeld():
		c.Verdict = Pass
		c.Reason = c.floorReason(sig, true)
	case enough && c.ruledOut() && rejected:
		c.Verdict = Pass
		c.Reason = fmt.Sprintf("significant, below the minimum effect: %s (%s, difference up to %s), %s < %s", c.shiftText(), ivs, format(c.Diff.Hi), sig, toleranceText(c.Metric))
	case enough && c.ruledOut():
		c.Verdict = Pass
		c.Reason = fmt.Sprintf("no regression above %s: %s (%s, difference up to %s)", toleranceText(c.Metric), c.shiftText(), ivs, format(c.Diff.Hi))
	default:
		c.Verdict = Inconclusive
		switch {
		case c.FloorHeld():
			c.Reason = c.floorReason(sig, false)
		case rejected:
			c.Reason = fmt.Sprintf("significantly worse, %s (%s), but not yet shown above or below the minimum effect %s", c.shiftText(), ivs, toleranceText(c.Metric))
		case minUTestP(runs, runs) > c.Level:
			c.Reason = fmt.Sprintf("too few runs: at %d + %d the test cannot reach its level %.2g; %s", runs, runs, c.Level, ivs)
		default:
			c.Reason = fmt.Sprintf("%s (%s, p = %.2g > %.2g): the interval reaches above the minimum effect %s", c.shiftText(), ivs, c.P, c.Level, toleranceText(c.Metric))
		}
		if c.Resolution < 1 {
			c.Reason += fmt.Sprintf("; too noisy to rule out within the plan (resolution %.2g)", c.Resolution)
		}
	}
}

// Blocks reports whether an inconclusive check holds the gate's pass back: a required one
// always; another one (too noisy to be ruled out within the plan) when its shift's estimate is
// above its minimum effect with some evidence (p < 0.1 at the last look).
func (c ABCheck) Blocks() bool {
	if c.Skipped || c.Verdict != Inconclusive {
		return false
	}
	return c.Required || (c.aboveTolerance() && c.P < 0.1)
}

// tooSaturated is the share of saturated runs above which durations are not judged to pass: a
// quarter.
func tooSaturated(saturated, runs int) bool { return 4*saturated > runs }

// PassOutOfReach reports whether no further runs of the plan can turn the inconclusive outcome
// into a pass: durations are judged, and the runs already saturated would be too many even if
// every run up to the plan's maximum were not. A fail is still possible; the gate stops anyway,
// since a fail and an inconclusive both keep the change out, and more runs on a saturated machine
// only make CI wait.
func (o *ABOutcome) PassOutOfReach() bool {
	return o.Verdict == Inconclusive && o.timed && tooSaturated(o.Saturated, 2*max(o.Plan.Max, o.Runs))
}

func (o *ABOutcome) outOfReach() string {
	return fmt.Sprintf("more runs cannot pass it: a pass allows at most a quarter of the plan's %d + %d runs saturated", o.Plan.Max, o.Plan.Max)
}

// decide sets the comparison's verdict, reason and advice from its checks, and which checks
// decided it (explain).
func (o *ABOutcome) decide(base, cand []results.Summary, opts ABOptions) {
	defer o.explain()
	var failed, blocking []string
	timed := false // a judged check of a duration, which a loaded machine stretches
	for _, c := range o.Checks {
		timed = timed || (!c.Skipped && strings.HasSuffix(c.Metric.Metric, "_seconds"))
		switch {
		case c.Verdict == Fail:
			failed = append(failed, c.Metric.Metric)
		case c.Blocks():
			blocking = append(blocking, fmt.Sprintf("%s (%s)", c.Metric.Metric, c.undecidedText(o.Runs, o.Plan.Max)))
		}
	}
	runs := fmt.Sprintf("%d + %d runs", o.Runs, o.Runs)
	sat := 0
	if opts.Saturated != nil {
		for _, r := range append(append([]results.Summary(nil), base...), cand...) {
			if opts.Saturated(r) {
				sat++
			}
		}
	}
	o.Saturated, o.timed = sat, timed
	switch {
	case len(failed) > 0:
		o.Verdict = Fail
		o.Reason = fmt.Sprintf("regression on %s (%s)", strings.Join(failed, ", "), runs)
		return
	case len(blocking) == 0 && timed && tooSaturated(sat, len(base)+len(cand)):
		// On a saturated machine a fixed slowdown (a later start, a cost per binding) is a small
		// share of everything the load stretched: its absence there says little of a quiet one.
		// Memory and counts are not stretched, so a comparison of those alone stands.
		o.Verdict = Inconclusive
		o.Reason = fmt.Sprintf("no regression shown, but the machine was saturated in %d of %d runs (%s)", sat, len(base)+len(cand), runs)
		if o.PassOutOfReach() {
			o.Reason += "; " + o.outOfReach()
		}
		o.Advice = "rerun the gate on a machine that is not saturated; a change that cannot be judged must not land unjudged"
		return
	case len(blocking) == 0:
		o.Verdict = Pass
		o.Reason = fmt.Sprintf("no regression above the minimum effect on any required check (%s)", runs)
		return
	}
	o.Verdict = Inconclusive
	parts := []string{fmt.Sprintf("not judged after %s: %s", runs, strings.Join(blocking, "; "))}
	if sat > 0 {
		parts = append(parts, fmt.Sprintf("the machine was saturated in %d of %d runs", sat, len(base)+len(cand)))
	}
	if o.PassOutOfReach() {
		parts = append(parts, o.outOfReach())
	}
	o.Reason = strings.Join(parts, "; ")
	o.Advice = "rerun the gate on a quieter machine (fewer jobs beside it), or raise ab.budget and ab.maxRepeats; a change that cannot be judged must not land unjudged"
}

// diff is the candidate's median minus the baseline's, defined for infinite medians.
func diff(base, cand float64) float64 {
	if base == cand {
		return 0
	}
	return cand - base
}
