package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/sut"
)

// The refusal watch ends a run whose controller AWS refuses outright, naming why, instead of letting the
// warm-up or a wait run out: refusals only for refusalWindow of scenario time, at least refusalMinCalls.
// A healthy controller's calls succeed or are throttled well within it.
const (
	refusalWindow   = 20 * time.Second
	refusalMinCalls = 5
	refusalPoll     = time.Second
)

// watchRefusals cancels the returned context, with a *observe.RefusedError as its cause, once every call
// the controller makes is refused for refusalWindow. stop ends the watch.
func watchRefusals(ctx context.Context, cloud backend.Backend, region string) (_ context.Context, stop func()) {
	rctx, cancel := context.WithCancelCause(ctx)
	d := &observe.Refusals{Window: refusalWindow, MinCalls: refusalMinCalls, Region: region}
	seq := 0
	if recent, err := cloud.CallsSince(0); err == nil && len(recent) > 0 {
		seq = int(recent[len(recent)-1].Seq)
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(refusalPoll)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-rctx.Done():
				return
			case <-tick.C:
			}
			calls, err := cloud.CallsSince(seq)
			if err != nil {
				continue // a remote fakeaws that did not answer: the waits notice what matters
			}
			if len(calls) > 0 {
				seq = int(calls[len(calls)-1].Seq)
			}
			d.Add(calls)
			now, err := cloud.Now()
			if err != nil {
				continue
			}
			if err := d.Stalled(now); err != nil {
				cancel(err)
				return
			}
		}
	}()
	return rctx, func() { close(done); cancel(nil) }
}

// refusedCause is the refusal that ended ctx, if that is what ended it.
func refusedCause(ctx context.Context) *observe.RefusedError {
	var re *observe.RefusedError
	if errors.As(context.Cause(ctx), &re) {
		return re
	}
	return nil
}

// startFailure is err, or the refusal that stopped the warm-up: the controller's configuration, exit code 2.
func (r *strategyRun) startFailure(err error) error {
	if re := refusedCause(r.runCtx); re != nil {
		return runerr.BadInput(fmt.Errorf("warm-up: %w", re))
	}
	return sut.StartFailure(r.runCtx, err)
}
