package observe

import "testing"

// The progress count is of bindings: a binding with any violation is not converged, and a
// violation of something else (an object group, a load balancer) counts for no binding.
func TestTallyOf(t *testing.T) {
	bindings := map[string]int{"ns/a": 0, "ns/b": 0, "ns/c": 0}
	got := tallyOf(bindings, map[string]bool{"ns/b": true, "group widgets": true})
	if *got != (Tally{Converged: 2, Bindings: 3}) {
		t.Errorf("tally = %+v, want 2 of 3", *got)
	}
	var k Checker
	if k.Converged() != (Tally{}) {
		t.Errorf("before any check: %+v, want zero", k.Converged())
	}
	k.tally.Store(got)
	if k.Converged() != *got {
		t.Errorf("after a check: %+v", k.Converged())
	}
}
