package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/scenario"
)

// abLookRuns builds the runs of an A/A comparison of n runs a side with TTFMRs a step apart, the
// first saturated of them (in run order, baseline first) on a saturated machine.
func abLookRuns(n, saturated int) ([]arm, [][]*strategyOutcome) {
	arms := []arm{{st: scenario.Strategy{Name: "ckpt-baseline"}}, {st: scenario.Strategy{Name: "ckpt"}}}
	runs := make([][]*strategyOutcome, len(arms))
	k := 0
	for i := range arms {
		for j := range n {
			ttfmr := 2.8 + 0.05*float64(j)
			sum := results.Summary{TTFMRSeconds: &ttfmr, Machine: &results.Machine{Saturated: k < saturated}}
			k++
			runs[i] = append(runs[i], &strategyOutcome{name: arms[i].st.Name, out: &measure.Output{Summary: sum}})
		}
	}
	return arms, runs
}

// TestABLookStopsWhenPassOutOfReach: an A/A look on a saturated machine asks for another block
// while a pass can still come, and stops, saying why, once it cannot.
func TestABLookStopsWhenPassOutOfReach(t *testing.T) {
	for _, tc := range []struct {
		saturated int
		next      int // rounds before the next look; 0: stop
		stopped   string
	}{{saturated: 16, next: 0, stopped: "saturated"}, {saturated: 8, next: 12, stopped: ""}} {
		var out strings.Builder
		res := &results.Results{
			Scenario: results.Scenario{StartedAt: time.Now()},
			AB: &results.AB{Strategy: "ckpt", Baseline: "ckpt-baseline", Candidate: "ckpt", Alpha: 0.05, Repeats: 8, Block: 4,
				MaxRepeats: 24, BudgetSeconds: 600, Metrics: []results.ABMetric{{Metric: results.MetricTTFMR, MinEffect: 0.25, MinDelta: 0.1}}},
		}
		arms, runs := abLookRuns(8, tc.saturated)
		next := abLook(&out, res, arms, runs, []float64{12})
		if next != tc.next || res.AB.Stopped != tc.stopped {
			t.Errorf("%d of 16 saturated: next look at %d rounds, stopped %q; want %d, %q\n%s", tc.saturated, next, res.AB.Stopped, tc.next, tc.stopped, out.String())
		}
		if says := strings.Contains(out.String(), "more runs cannot pass it"); says != (tc.stopped == "saturated") {
			t.Errorf("%d of 16 saturated: the look's output names the stop %v, want %v:\n%s", tc.saturated, says, tc.stopped == "saturated", out.String())
		}
	}
}
