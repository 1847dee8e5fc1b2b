package sim

import (
	"testing"

	"github.com/restartsim/restartsim/sim/scenario"
)

// TestWarmupWorkersOnlyBeforeTheFirstRestart: the warm-up instance gets controller.warmupWorkers, every
// instance started by a restart the strategy's own count.
func TestWarmupWorkersOnlyBeforeTheFirstRestart(t *testing.T) {
	p := &inProcess{strategy: scenario.Strategy{Name: "s", MaxConcurrentReconciles: 3}, scale: 1, replicas: 1, warmupWorkers: 24}
	workers := func() int {
		o, err := p.options(0, &gate{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return o.MaxConcurrentReconciles
	}
	if got := workers(); got != 24 {
		t.Fatalf("warm-up instance: %d workers, want 24", got)
	}
	p.restarted = true
	if got := workers(); got != 3 {
		t.Fatalf("restarted instance: %d workers, want the strategy's 3", got)
	}
	p = &inProcess{strategy: scenario.Strategy{Name: "s", MaxConcurrentReconciles: 5}, scale: 1, replicas: 1}
	if got := workers(); got != 5 {
		t.Fatalf("no warmupWorkers: %d workers, want the strategy's 5", got)
	}
}
