package gate

import (
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// floorMetric is a latency judged at +50 % with a 1.5 s absolute floor (a scenario's ab metric
// whose floor is wide against its values).
var floorMetric = results.ABMetric{Metric: results.MetricTTFMR, MinEffect: 0.5, MinDelta: 1.5}

// A near-doubling that the test shows clearly but that stays within the 1.5 s floor passes, and
// the outcome names the floor and the shift's size instead of calling it "below the minimum
// effect".
func TestFloorHeldPassIsNamed(t *testing.T) {
	out, err := EvaluateAB(abResults(seq(1.0, 0.01, 16), seq(1.86, 0.01, 16), floorMetric))
	if err != nil {
		t.Fatal(err)
	}
	c := out.Checks[0]
	if out.Verdict != Pass || c.Verdict != Pass || !c.FloorHeld() {
		t.Fatalf("verdict %s, check %s (%s), floor held %v: want a pass held by the floor", out.Verdict, c.Verdict, c.Reason, c.FloorHeld())
	}
	for _, want := range []string{"passed only by its absolute floor of 1.5 s", "×1.8,", "+0.86 s"} {
		if !strings.Contains(c.Reason, want) {
			t.Errorf("reason %q, want it to contain %q", c.Reason, want)
		}
	}
	if len(out.Decided) == 0 || !strings.Contains(out.Decided[0], "passed by its floor only") {
		t.Errorf("decided %q: want the floor-held check named first", out.Decided)
	}
}

// A clear ×1.9 whose difference's interval reaches above the floor is held back by it: the
// verdict is inconclusive, and the reason says so with the size rather than "not yet shown".
func TestFloorHeldInconclusiveIsNamed(t *testing.T) {
	base := []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1.3, 1.3, 1.3, 1.3, 1.3, 1.3, 2.3, 2.3, 2.3, 2.3}
	cand := []float64{1.3, 1.3, 1.3, 1.3, 1.3, 2.3, 2.3, 2.3, 2.3, 2.3, 2.3, 3.3, 3.3, 3.3, 3.3, 4.3}
	out, err := EvaluateAB(abResults(base, cand, floorMetric))
	if err != nil {
		t.Fatal(err)
	}
	c := out.Checks[0]
	if c.RejectedAt < 0 {
		t.Fatalf("p = %g > %g: the case needs a significant shift", c.P, c.Level)
	}
	if out.Verdict != Inconclusive || !c.FloorHeld() {
		t.Fatalf("verdict %s (%s), floor held %v: want inconclusive, held by the floor", out.Verdict, c.Reason, c.FloorHeld())
	}
	for _, s := range []string{c.Reason, out.Reason} {
		if !strings.Contains(s, "held back only by its absolute floor of 1.5 s") || !strings.Contains(s, "×") {
			t.Errorf("%q: want the floor and the shift's size named", s)
		}
	}
	if len(out.Undecided) != 1 || !strings.HasPrefix(out.Undecided[0], "ttfmr_seconds: significantly worse") {
		t.Errorf("undecided %q: want the check and why", out.Undecided)
	}
}

// A noisy A/A says which interval end is in the way and how many runs would decide it; a pass
// names the required check closest to its limit.
func TestUndecidedAndDecidedSayWhy(t *testing.T) {
	noisy, err := EvaluateAB(abResults([]float64{1, 1.3, 1.6, 1.9, 2.2, 2.5, 2.8, 3.1}, []float64{1.1, 1.4, 1.7, 2.0, 2.3, 2.6, 2.9, 3.2}))
	if err != nil {
		t.Fatal(err)
	}
	if len(noisy.Undecided) != 1 || !strings.Contains(noisy.Undecided[0], "noise: interval ×") || !strings.Contains(noisy.Undecided[0], "runs would rule it out") {
		t.Errorf("noisy A/A: undecided %q, want the interval and the runs that would decide it", noisy.Undecided)
	}
	few, err := EvaluateAB(abResults(seq(1, 0.1, 3), seq(1, 0.1, 3)))
	if err != nil {
		t.Fatal(err)
	}
	if len(few.Undecided) != 1 || !strings.Contains(few.Undecided[0], "its test needs 4 + 4") {
		t.Errorf("3 + 3 runs: undecided %q, want the runs its test needs", few.Undecided)
	}
	pass, err := EvaluateAB(abResults(seq(1.4, 0.05, 8), seq(1.41, 0.05, 8)))
	if err != nil {
		t.Fatal(err)
	}
	if pass.Verdict != Pass || len(pass.Decided) != 1 || !strings.Contains(pass.Decided[0], "the closest, ttfmr_seconds, reaches ×") {
		t.Errorf("tight A/A: %s, decided %q: want the closest check named", pass.Verdict, pass.Decided)
	}
}

// An A/A on a saturated machine names the saturation rule as what decided it.
func TestSaturationDecides(t *testing.T) {
	r := abResults(seq(1.4, 0.05, 8), seq(1.41, 0.05, 8))
	for i := range r.Strategies {
		for j := range r.Strategies[i].Runs {
			r.Strategies[i].Runs[j].Machine = &results.Machine{Saturated: true}
		}
	}
	out, err := EvaluateAB(r)
	if err != nil {
		t.Fatal(err)
	}
	if out.Verdict != Inconclusive || len(out.Decided) != 1 || !strings.Contains(out.Decided[0], "saturated in 16 of 16 runs") {
		t.Errorf("saturated A/A: %s, decided %q: want the saturation rule named", out.Verdict, out.Decided)
	}
}

// A check whose ratio already fits its relative effect but whose difference reaches above its
// absolute effect needs more runs for both to fit: the estimate must not say the runs it has.
func TestUndecidedRunsCountTheAbsoluteEffect(t *testing.T) {
	c := ABCheck{Metric: results.ABMetric{Metric: results.MetricTTFMR, MinEffect: 0.5, AbsEffect: 1, MinDelta: 0.1},
		Ratio: Interval{Center: 1, Lo: 0.92, Hi: 1.448}, Diff: Interval{Center: 0.1, Lo: -0.5, Hi: 1.32},
		RejectedAt: -1, P: 0.5, Level: 0.0017}
	got := c.undecidedCause(8, 24)
	if !strings.Contains(got, "about 15 + 15 runs would rule it out") {
		t.Fatalf("undecided: %s\nwant about 15 + 15 runs (the difference's +1.32 s against +1 s)", got)
	}
}
