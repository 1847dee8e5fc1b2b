package sim

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/observe"
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
