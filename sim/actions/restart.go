package actions

import (
	"context"
	"fmt"
	"time"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/scenario"
)

// restart stops the leader and starts a replacement after the step's downtime. With await none
// it returns once the leader stopped: the replacement starts, and is recorded when it leads, in
// the background (AwaitLeaders waits for that).
func (e *Executor) restart(ctx context.Context, st scenario.Step) error {
	// Only a leader can be restarted: a previous restart's new instance must lead first.
	if err := e.AwaitLeaders(ctx); err != nil {
		return err
	}
	stopped, err := e.ctrls.StopLeader(ctx, st.Mode)
	if err != nil {
		return err
	}
	var downtime time.Duration // scenario time
	if st.Downtime != nil {
		downtime = st.Downtime.Duration
	}
	// Started, At and the event's end are filled in as the replacement starts and leads.
	e.mu.Lock()
	ri, ei := len(e.restarts), len(e.events)
	s := e.sec(stopped)
	elects := e.ctrls.ElectsLeader()
	e.restarts = append(e.restarts, measure.Restart{Stopped: s, Started: s, At: s, Downtime: downtime.Seconds(), Mode: st.Mode, LeaderElection: elects})
	e.events = append(e.events, results.Event{AtSeconds: measure.Round3(s), Kind: "restart", Detail: st.Mode, EndSeconds: measure.Round3(s)})
	e.mu.Unlock()
	replace := func(ctx context.Context) error {
		if st.StripCheckpoints {
			if err := e.stripCheckpoints(ctx); err != nil {
				return fmt.Errorf("restart at %.3fs: %w", s, err)
			}
		}
		if err := e.clock.SleepUntil(ctx, stopped.Add(e.clock.Wall(downtime))); err != nil {
			return err
		}
		started, leads, err := e.ctrls.StartReplacement(ctx)
		if err != nil {
			return fmt.Errorf("restart at %.3fs: starting the replacement: %w", s, err)
		}
		e.mu.Lock()
		e.restarts[ri].Started, e.restarts[ri].At = e.sec(started), e.sec(started)
		e.mu.Unlock()
		at, err := leads(ctx)
		if err != nil {
			return fmt.Errorf("restart at %.3fs: waiting for the new instance to lead: %w", s, err)
		}
		e.mu.Lock()
		e.restarts[ri].At = e.sec(at)
		if elects {
			leading := e.sec(at)
			e.restarts[ri].Leading = &leading
		}
		e.events[ei].EndSeconds = measure.Round3(e.sec(at))
		e.mu.Unlock()
		return nil
	}
	if st.Await != scenario.AwaitNone {
		return replace(ctx)
	}
	e.leadsWG.Add(1)
	go func() {
		defer e.leadsWG.Done()
		if err := replace(ctx); err != nil {
			e.mu.Lock()
			if e.leadErr == nil {
				e.leadErr = err
			}
			e.mu.Unlock()
		}
	}()
	return nil
}

// WaitLeader is waitFor: leader: it waits until the new instance of every restart leads.
func (e *Executor) WaitLeader(ctx context.Context, _ int, timeout time.Duration) (bool, error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := e.AwaitLeaders(wctx)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return false, nil
	}
	return err == nil, err
}

// AwaitLeaders waits until the new instance of every restart with await none leads.
func (e *Executor) AwaitLeaders(ctx context.Context) error {
	done := make(chan struct{})
	go func() { e.leadsWG.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leadErr
}
