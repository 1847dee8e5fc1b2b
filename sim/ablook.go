package sim

import (
	"fmt"
	"io"
	"time"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

// abLook is a look of the A/B comparison's sequential plan after the rounds so far: it judges
// the runs with the gate's rule, prints the look to stdout (runs so far, each check's state) and
// returns the rounds to reach before the next look, or 0 to stop: the verdict is decided, the plan
// is done, the machine was saturated in too many runs for any further run to bring a pass, or
// another block would not fit the budget (judged from the rounds so far, fleet snapshot
// excluded, each taking as long as the slower of their mean and the last one).
func abLook(stdout io.Writer, res *results.Results, arms []arm, runs [][]*strategyOutcome, roundSecs []float64) int {
	ab := res.AB
	sums := func(name string) []results.Summary {
		var out []results.Summary
		for _, r := range runs[abArm(arms, name)] {
			out = append(out, r.out.Summary)
		}
		return out
	}
	plan := gate.ABPlan(ab)
	out, err := gate.JudgeAB(ab, sums(ab.Baseline), sums(ab.Candidate), gate.ABOptions{Saturated: gate.RanSaturated})
	if err != nil {
		fmt.Fprintf(stdout, "A/B look: %v\n", err)
		ab.Stopped = "error"
		return 0
	}
	elapsed := time.Since(res.Scenario.StartedAt)
	fmt.Fprintf(stdout, "A/B look %d of %d: %d + %d runs, %s elapsed of a %s budget\n", out.Look+1, plan.Looks(), out.Runs, out.Runs,
		elapsed.Round(time.Second), (time.Duration(ab.BudgetSeconds) * time.Second).Round(time.Second))
	for _, c := range out.Checks {
		if c.Skipped {
			continue
		}
		fmt.Fprintf(stdout, "  %-46s %-12s ×%s [%s, %s]  p %.2g ≤ %.2g\n", c.Metric.Metric, c.Verdict,
			fmtRatio(c.Ratio.Center), fmtRatio(c.Ratio.Lo), fmtRatio(c.Ratio.Hi), c.P, c.Level)
	}
	switch {
	case out.Verdict != gate.Inconclusive:
		ab.Stopped = "decided"
	case out.Look == plan.Looks()-1:
		ab.Stopped = "max"
	case out.PassOutOfReach():
		ab.Stopped = "saturated"
	case ab.Stopped == "budget":
	default:
		block := plan.Runs(out.Look+1) - out.Runs
		need := time.Duration(float64(block) * roundEstimate(roundSecs) * float64(time.Second))
		left := time.Duration(ab.BudgetSeconds*float64(time.Second)) - elapsed
		if ab.BudgetSeconds > 0 && need > left {
			ab.Stopped = "budget"
			fmt.Fprintf(stdout, "  → %s; a block of %d more per side needs about %s, %s of the budget is left: stop\n", out.Verdict, block, need.Round(time.Second), max(left, 0).Round(time.Second))
			return 0
		}
		fmt.Fprintf(stdout, "  → %s: %s; %d more runs per side (about %s)\n", out.Verdict, out.Reason, block, need.Round(time.Second))
		return out.Runs + block
	}
	fmt.Fprintf(stdout, "  → %s: %s\n", out.Verdict, out.Reason)
	return 0
}

func fmtRatio(v float64) string { return fmt.Sprintf("%.3g", v) }

// roundEstimate is how long the next round is expected to take: the slower of the rounds' mean
// and the last one.
func roundEstimate(roundSecs []float64) float64 {
	mean := 0.0
	for _, s := range roundSecs {
		mean += s / float64(len(roundSecs))
	}
	return max(mean, roundSecs[len(roundSecs)-1])
}

// roundFits reports whether another round ends within the A/B budget, counted from started (the
// run's start, fleet snapshot included).
func roundFits(ab *results.AB, started time.Time, roundSecs []float64) bool {
	if ab.BudgetSeconds <= 0 || len(roundSecs) == 0 {
		return true
	}
	return time.Since(started).Seconds()+roundEstimate(roundSecs) <= ab.BudgetSeconds
}
