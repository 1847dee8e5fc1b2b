package sim

import "testing"

// A starved run is made again while starved runs are the exception: the first always, then at most
// a quarter of the runs finished; on a machine loaded throughout the runs are judged as they are.
func TestStarvedRunsMadeAgainWhileTransient(t *testing.T) {
	for _, c := range []struct {
		starved, finished int
		want              bool
	}{{1, 1, true}, {2, 2, false}, {2, 8, true}, {3, 8, false}, {3, 12, true}, {0, 0, true}} {
		if got := transient(c.starved, c.finished); got != c.want {
			t.Errorf("transient(%d starved of %d) = %v, want %v", c.starved, c.finished, got, c.want)
		}
	}
	if err := CheckParallel(MaxParallel + 1); err == nil {
		t.Error("--parallel above the limit accepted")
	}
	if err := CheckParallel(0); err != nil {
		t.Errorf("--parallel 0 (the scenario's): %v", err)
	}
}
