package actions

import (
	"errors"
	"fmt"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/measure"
)

// EventStalled is the kind of the event a steady-state wait records when it gave up because nothing
// progressed (its step's stalledAfter): from the last progress to the giving up.
const EventStalled = "stalled"

// errStalled ends a steady-state wait whose run stalled.
var errStalled = errors.New("stalled")

// progress is what the stall rule compares from poll to poll: any difference is progress. Each is
// a count that moves only when something happens: a change made (by the timeline) or applied (the
// controller), an AWS call that changed something, a watched object written by anyone.
type progress struct {
	made, unapplied, mutations int
	objects                    uint64
}

// stallRule tells when the progress has not moved for window while changes remain unapplied.
type stallRule struct {
	window time.Duration
	last   progress
	since  time.Time
	seen   bool
}

// observe takes the progress seen at now and reports whether the run stalled: changes are still
// unapplied and nothing has moved since window ago. The rule's clock starts at the first observation.
func (s *stallRule) observe(now time.Time, p progress) bool {
	if !s.seen || p != s.last {
		s.last, s.since, s.seen = p, now, true
		return false
	}
	return p.unapplied > 0 && now.Sub(s.since) >= s.window
}

// progressOf reads the progress from what the actions recorded and the watched objects' count.
func progressOf(in *measure.Input, unapplied int, objects uint64) progress {
	p := progress{made: len(in.Changes) + len(in.Drifts), unapplied: unapplied, objects: objects}
	for _, c := range in.Calls {
		if c.Outcome == fakeaws.OutcomeOK && c.Mutates() {
			p.mutations++
		}
	}
	return p
}

// stalledDetail says what the stall event means.
func stalledDetail(window time.Duration, unapplied int) string {
	return fmt.Sprintf("the steady-state wait gave up: for %s no change was made or applied, no AWS call changed anything and no watched object changed, while %d changes remained unapplied",
		window, unapplied)
}

// stallRule is the rule of the steady-state wait at timeline index, nil when its step sets no
// stalledAfter.
func (e *Executor) stallRule(index int) *stallRule {
	if index < 0 || index >= len(e.sc.Timeline) || e.sc.Timeline[index].StalledAfter == nil {
		return nil
	}
	return &stallRule{window: e.clock.Wall(e.sc.Timeline[index].StalledAfter.Duration)}
}

// pendingOrStalled counts the pending changes, as pending does, and with a stall rule judges the
// progress: errStalled, with a "stalled" event recorded, once the run has stalled.
func (e *Executor) pendingOrStalled(stall *stallRule, at time.Time) (int, error) {
	in, err := e.Recorded()
	if err != nil {
		return 0, err
	}
	n := e.pendingIn(in)
	if stall == nil || !stall.observe(at, progressOf(in, n, e.objApplied.Changes())) {
		return n, nil
	}
	e.event(EventStalled, stalledDetail(e.clock.Scenario(stall.window), n), stall.since, &at)
	return n, errStalled
}
