package actions

import (
	"context"
	"errors"
	"time"

	"github.com/restartsim/restartsim/internal/poll"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/observe"
)

// WaitSteady polls until the run is steady: nothing recorded is pending and the invariants hold.
// The cheap test comes first: while a recorded change or drift is not applied in the call log, or a
// recorded gate has not turned True, the run cannot be steady, and the invariant check (every
// binding, pod and target group: a good fraction of a core at 10,000 bindings) is not run, so it
// does not compete with the controller under test for the CPU while that works through a restart.
//
// With the step's stalledAfter, the wait also gives up once nothing has progressed for that long
// while changes remain unapplied (stallRule), recording a "stalled" event.
func (e *Executor) WaitSteady(ctx context.Context, index int, timeout time.Duration) (bool, error) {
	every := max(20*time.Millisecond, min(500*time.Millisecond, e.clock.Wall(time.Second)))
	stall := e.stallRule(index)
	err := poll.Until(ctx, timeout, observe.Paced(every), func() (bool, error) {
		at := e.clock.Now()
		e.mu.Lock()
		busy := at.Before(e.busyUntil)
		e.mu.Unlock()
		if !busy || stall != nil {
			pending, err := e.pendingOrStalled(stall, at)
			if err != nil {
				return false, err
			}
			busy = busy || pending > 0
		}
		if busy {
			return false, nil
		}
		inv, err := e.check.Check(ctx, false)
		if errors.Is(err, observe.ErrUnsettled) {
			return false, nil
		}
		if err != nil || !inv.Passed {
			return false, err
		}
		s := e.sec(at)
		e.mu.Lock()
		e.steadyAt = &s
		e.mu.Unlock()
		return true, nil
	})
	if errors.Is(err, poll.ErrTimeout) || errors.Is(err, errStalled) {
		e.mu.Lock()
		e.steadyAt = nil
		e.mu.Unlock()
		return false, nil
	}
	return err == nil, err
}

// pendingIn counts the recorded changes and drifts that AWS does not reflect yet, and the recorded
// readiness gates not yet seen turning True. The latter also keeps a check that polls the watch
// cache from passing before the cache has seen the run's own writes (a gate set back to False).
func (e *Executor) pendingIn(in *measure.Input) int {
	n := measure.Pending(in)
	for _, g := range in.GateFlips {
		if g.True == nil && e.pods.Exists(g.Pod) {
			n++ // a pod deleted since (scaled down) has no gate left to flip
		}
	}
	return n
}
