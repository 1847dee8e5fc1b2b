package sim

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/sut"
)

// The progress watch ends a run whose controller cannot progress, naming why, instead of letting the
// warm-up or a wait run out: AWS refused its every call for refusalWindow of scenario time (at least
// refusalMinCalls), or every object it has not made ready carries one error condition, unchanged for
// refusalWindow, while none of its calls succeeded or was throttled. A healthy controller's calls succeed
// or are throttled well within it.
const (
	refusalWindow   = 20 * time.Second
	refusalMinCalls = 5
	refusalPoll     = time.Second
	// conditionPolls is how many polls apart the objects are read during the warm-up: listing them copies
	// every one.
	conditionPolls = 5
)

// watchProgress makes runCtx end, with a *observe.RefusedError or *observe.StuckError as its cause,
// once the controller makes no progress for a reason the harness can see.
func (r *strategyRun) watchProgress() {
	rctx, cancel := context.WithCancelCause(r.runCtx)
	p := &progressWatch{cloud: r.cloud, cancel: cancel,
		calls: &observe.Refusals{Window: refusalWindow, MinCalls: refusalMinCalls, Region: r.sc.AWS.Region},
		conds: &observe.Conditions{Window: refusalWindow}}
	if r.objects != nil {
		p.objs = r.objects.watch
	}
	if now, err := r.cloud.Now(); err == nil {
		p.calls.Start = now
	}
	if recent, err := r.cloud.CallsSince(0); err == nil && len(recent) > 0 {
		p.seq = int(recent[len(recent)-1].Seq)
	}
	r.progress = p
	done := make(chan struct{})
	go p.run(rctx, done)
	r.stops.add(func() { close(done); cancel(nil) })
	r.runCtx = rctx
}

// progressWatch polls the call log and the objects' conditions.
type progressWatch struct {
	cloud  backend.Backend
	objs   *observe.Objects
	cancel context.CancelCauseFunc
	calls  *observe.Refusals
	conds  *observe.Conditions
	seq    int
	// timeline is set once the measured phase runs: a crash's downtime and a replacement's wait for the
	// Lease make no progress by design, so the conditions are judged during the warm-up only.
	timeline atomic.Bool
	polls    int
}

// measuring says the measured phase started.
func (p *progressWatch) measuring() {
	if p != nil {
		p.timeline.Store(true)
	}
}

func (p *progressWatch) run(ctx context.Context, done <-chan struct{}) {
	tick := time.NewTicker(refusalPoll)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := p.check(ctx); err != nil {
			p.cancel(err)
			return
		}
	}
}

// check reads what is new; an error ends the run. A read that fails (a remote fakeaws that did not
// answer) checks nothing: the waits notice what matters.
func (p *progressWatch) check(ctx context.Context) error {
	calls, err := p.cloud.CallsSince(p.seq)
	if err != nil {
		return nil //nolint:nilerr // a read that fails checks nothing (see above)
	}
	if len(calls) > 0 {
		p.seq = int(calls[len(calls)-1].Seq)
	}
	p.calls.Add(calls)
	now, err := p.cloud.Now()
	if err != nil {
		return nil //nolint:nilerr // likewise
	}
	if err := p.calls.Stalled(now); err != nil {
		return err
	}
	p.polls++
	if p.objs == nil || p.timeline.Load() || p.polls%conditionPolls != 0 {
		return nil
	}
	objs, err := p.objs.List(ctx)
	if err != nil {
		return nil //nolint:nilerr // likewise
	}
	msg, n := p.conds.Observe(now, objs)
	if n == 0 || !p.calls.Quiet(now) {
		return nil
	}
	st, err := p.objs.Status(ctx)
	if err != nil {
		return nil //nolint:nilerr // likewise
	}
	notReady := 0
	for _, g := range st.Groups {
		notReady += g.Present - g.Ready
	}
	if notReady != n {
		return nil // some objects are not ready for another reason
	}
	return &observe.StuckError{Message: msg, Objects: n, Window: refusalWindow, Refusals: p.calls.Refused()}
}

// refusedCause is the refusal or stuck condition that ended ctx, if that is what ended it.
func refusedCause(ctx context.Context) error {
	var re *observe.RefusedError
	var se *observe.StuckError
	if cause := context.Cause(ctx); errors.As(cause, &re) || errors.As(cause, &se) {
		return cause
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
