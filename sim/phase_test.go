package sim

import (
	"testing"

	"github.com/restartsim/restartsim/sim/observe"
)

// The convergence spinner says how many bindings converged once the first check counted them.
func TestConvergenceStatus(t *testing.T) {
	if got := convergenceStatus("converging the fleet", observe.Tally{}); got != "converging the fleet" {
		t.Errorf("before a check: %q", got)
	}
	if got := convergenceStatus("converging the fleet", observe.Tally{Converged: 120, Bindings: 1000}); got != "converging the fleet: 120/1000 bindings converged" {
		t.Errorf("after a check: %q", got)
	}
}
