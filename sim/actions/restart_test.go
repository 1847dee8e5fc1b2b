package actions

import (
	"context"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// A restart stops the leader, starts the replacement once its scenario downtime has passed on the
// clock and records when each happened and when the replacement led, in scenario seconds; with
// await none the step returns at the stop and AwaitLeaders waits for the rest.
func TestRestartTiming(t *testing.T) {
	for _, await := range []string{"", scenario.AwaitNone} {
		t.Run("await "+await, func(t *testing.T) {
			r := newRig(t, &scenario.Scenario{}, workload.Spec{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r.wall.Step(time.Second)
			st := scenario.Step{Action: scenario.ActionRestart, Mode: scenario.RestartCrash, Await: await, Downtime: scenario.D(5 * time.Second)}
			if await == scenario.AwaitNone {
				if err := r.ex.Do(ctx, 0, st); err != nil {
					t.Fatal(err)
				}
				if n := r.ctrls.startedCount(); n != 0 {
					t.Fatalf("the replacement started before the downtime passed (%d started)", n)
				}
				r.advanceWhenWaiting(ctx, 100*time.Millisecond)
			} else {
				r.advanceWhenWaiting(ctx, 100*time.Millisecond)
				if err := r.ex.Do(ctx, 0, st); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.ex.AwaitLeaders(ctx); err != nil {
				t.Fatal(err)
			}
			r.ex.mu.Lock()
			defer r.ex.mu.Unlock()
			if len(r.ex.restarts) != 1 {
				t.Fatalf("restarts %+v", r.ex.restarts)
			}
			// Stopped at 1s of wall time, started 0.5s later, led 1s after that.
			rs := r.ex.restarts[0]
			if rs.Stopped != 10 || rs.Started != 15 || rs.At != 25 || rs.Leading == nil || *rs.Leading != 25 || rs.Downtime != 5 {
				t.Errorf("restart %+v, want stopped at 10s, started at 15s and leading at 25s", rs)
			}
			if ev := r.ex.events[0]; ev.Kind != "restart" || ev.AtSeconds != 10 || ev.EndSeconds != 25 {
				t.Errorf("event %+v, want a restart from 10s to 25s", ev)
			}
		})
	}
}

// A restart waiting out its downtime ends with its context.
func TestRestartEndsWithItsContext(t *testing.T) {
	r := newRig(t, &scenario.Scenario{}, workload.Spec{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.ex.Do(ctx, 0, scenario.Step{Action: scenario.ActionRestart, Mode: scenario.RestartCrash, Downtime: scenario.D(time.Hour)})
	}()
	testwait.Until(t, time.Minute, "the downtime to wait on the clock", r.wall.HasWaiters)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a restart whose context ended returned no error")
	}
	if r.ctrls.startedCount() != 0 {
		t.Error("the replacement started")
	}
}
