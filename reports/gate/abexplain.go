package gate

import (
	"fmt"
	"math"
	"strings"
)

// worse reports whether the candidate's shift is upwards (slower, costlier). The shift's
// estimate, not the medians: a median jumps between a latency's steps. When most pairs tie
// (counts), the estimate is 0 and the medians say which way the test rejected.
func (c ABCheck) worse() bool {
	return c.Diff.Center > 0 || c.Diff.Center == 0 && c.CandidateMedian.Center > c.BaselineMedian.Center
}

// FloorHeld reports whether the check is significantly worse by more than its relative (or
// absolute) minimum effect and only its floor, MinDelta, keeps that shift from counting as a
// regression: a reviewer must see such a shift named, with its size, whatever the verdict.
func (c ABCheck) FloorHeld() bool {
	if c.Skipped || c.RejectedAt < 0 || !c.worse() || c.Verdict == Fail {
		return false
	}
	m := c.Metric
	abs := m.AbsEffect
	if abs <= 0 {
		abs = math.Inf(1)
	}
	d := c.Diff.Center
	return d <= m.MinDelta && (c.Ratio.Center > 1+m.MinEffect || d > abs)
}

// unit is " s" for a duration metric, else "".
func (c ABCheck) unit() string {
	if strings.HasSuffix(c.Metric.Metric, "_seconds") {
		return " s"
	}
	return ""
}

// floorText names the absolute floor: "1.5 s".
func (c ABCheck) floorText() string { return format(c.Metric.MinDelta) + c.unit() }

// sizeText is the shift's size in both forms: "×1.86, +0.93 s".
func (c ABCheck) sizeText() string {
	return fmt.Sprintf("×%s, %+.3g%s", format(c.Ratio.Center), c.Diff.Center, c.unit())
}

// floorReason is the reason of a FloorHeld check; passed tells whether its interval already rules
// out a shift above the floor.
func (c ABCheck) floorReason(sig string, passed bool) string {
	s := fmt.Sprintf("significantly worse by %s (%s; interval ×%s–%s, difference up to %s%s), %s: above %s, ",
		c.shiftText(), c.sizeText(), format(c.Ratio.Lo), format(c.Ratio.Hi), format(c.Diff.Hi), c.unit(), sig, relativeText(c))
	if passed {
		return s + "passed only by its absolute floor of " + c.floorText()
	}
	return s + "held back only by its absolute floor of " + c.floorText() + " (the difference's interval reaches above it)"
}

// relativeText is the minimum effect without the floor: "+50% or +1 s".
func relativeText(c ABCheck) string { return toleranceText(c.Metric) }

// runsNeeded is the fewest runs per side at which the Mann–Whitney test can reach level at all.
func runsNeeded(level float64) int {
	n := 2
	for minUTestP(n, n) > level && n < 1000 {
		n++
	}
	return n
}

// undecidedText says in a reviewer's words why an inconclusive check is undecided after runs per
// side, and what would decide it within a plan of planMax runs per side.
func (c ABCheck) undecidedText(runs, planMax int) string {
	s := c.undecidedCause(runs, planMax)
	// The noise cause already estimates the runs from the interval itself.
	if c.Resolution < 1 && !c.FloorHeld() && !strings.HasPrefix(s, "noise:") {
		s += fmt.Sprintf("; too noisy to rule out within the plan (resolution %.2g)", c.Resolution)
	}
	return s
}

// undecidedCause is the first reason why an inconclusive check is undecided.
func (c ABCheck) undecidedCause(runs, planMax int) string {
	lim := 1 + c.Metric.MinEffect
	switch {
	case c.FloorHeld():
		return fmt.Sprintf("significantly worse (%s, p %.2g ≤ %.2g), above %s, held back only by its absolute floor of %s",
			c.sizeText(), c.P, c.Level, relativeText(c), c.floorText())
	case c.RejectedAt >= 0:
		return fmt.Sprintf("significantly worse (%s, p %.2g ≤ %.2g), not yet shown above or below %s", c.sizeText(), c.P, c.Level, relativeText(c))
	case minUTestP(runs, runs) > c.Level:
		return fmt.Sprintf("too few runs: its test needs %d + %d to reach its level %.2g", runsNeeded(c.Level), runsNeeded(c.Level), c.Level)
	case !c.withinTolerance(c.Ratio.Center, c.Diff.Center):
		return fmt.Sprintf("looks worse than %s (%s) but not significantly (p %.2g > %.2g)", relativeText(c), c.sizeText(), c.P, c.Level)
	}
	s := fmt.Sprintf("noise: interval ×%s–%s, difference up to %+.3g%s, reaches above %s (floor %s)",
		format(c.Ratio.Lo), format(c.Ratio.Hi), c.Diff.Hi, c.unit(), relativeText(c), c.floorText())
	// An interval's half-width shrinks as 1/√n: the runs at which its upper end would fall within
	// the tolerance (withinTolerance) at the same estimate and spread: by the floor alone, or by the
	// ratio and the absolute effect together.
	byEffect := math.Max(runsToFit(runs, c.Ratio.Center, c.Ratio.Hi, lim), runsToFit(runs, c.Diff.Center, c.Diff.Hi, c.absEffect()))
	need := math.Min(byEffect, runsToFit(runs, c.Diff.Center, c.Diff.Hi, c.Metric.MinDelta))
	switch {
	case need <= float64(planMax):
		s += fmt.Sprintf("; at this spread about %.0f + %.0f runs would rule it out", need, need)
	case !math.IsInf(need, 1):
		s += fmt.Sprintf("; at this spread about %.0f + %.0f runs would rule it out, more than the plan's %d", need, need, planMax)
	}
	return s
}

// runsToFit is the runs per side at which an interval from center to hi at runs would end at
// limit, its half-width shrinking as 1/√n; +Inf when the center is not below the limit.
func runsToFit(runs int, center, hi, limit float64) float64 {
	up, room := hi-center, limit-center
	if room <= 0 || math.IsInf(up, 0) || math.IsNaN(up) {
		return math.Inf(1)
	}
	return math.Max(float64(runs), math.Ceil(float64(runs)*(up/room)*(up/room)))
}

// explain fills the outcome's Decided and Undecided: which checks decided the verdict, and why each
// inconclusive check is undecided (a check held back only by its floor is named with its size).
func (o *ABOutcome) explain() {
	o.Decided, o.Undecided = nil, nil
	var closest *ABCheck
	required := 0
	for i := range o.Checks {
		c := &o.Checks[i]
		switch {
		case c.Skipped:
		case c.Verdict == Fail:
			o.Decided = append(o.Decided, fmt.Sprintf("%s failed: %s", c.Metric.Metric, c.Reason))
		case c.Verdict == Inconclusive:
			why := c.undecidedText(o.Runs, o.Plan.Max)
			if !c.Blocks() {
				why += " (reported; it does not hold a pass back)"
			}
			o.Undecided = append(o.Undecided, c.Metric.Metric+": "+why)
		case c.FloorHeld():
			o.Decided = append(o.Decided, fmt.Sprintf("%s passed by its floor only: %s", c.Metric.Metric, c.Reason))
		case c.Verdict == Pass && c.Required:
			required++
			if !math.IsInf(c.margin(), 1) && (closest == nil || c.margin() < closest.margin()) {
				closest = c
			}
		}
	}
	if o.Verdict == Inconclusive && o.timed && tooSaturated(o.Saturated, 2*o.Runs) {
		o.Decided = append(o.Decided, fmt.Sprintf("the saturation rule: the machine was saturated in %d of %d runs, and a pass of durations allows a quarter", o.Saturated, 2*o.Runs))
	}
	if o.Verdict != Pass {
		return
	}
	line := fmt.Sprintf("%d required checks ruled out a regression above their minimum effect", required)
	if closest != nil {
		line += fmt.Sprintf("; the closest, %s, reaches ×%s of the ×%s allowed", closest.Metric.Metric, format(closest.Ratio.Hi), format(1+closest.Metric.MinEffect))
	}
	o.Decided = append(o.Decided, line)
}

// margin is how far the ratio's upper end stays below the relative limit (in ratio units); +Inf
// when the check passed by its absolute floor or difference alone.
func (c ABCheck) margin() float64 {
	if c.Diff.Hi <= c.Metric.MinDelta {
		return math.Inf(1)
	}
	return 1 + c.Metric.MinEffect - c.Ratio.Hi
}
