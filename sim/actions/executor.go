package actions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
	"github.com/restartsim/restartsim/sim/workload"
)

// Executor performs timeline actions against the fleet, the controllers and fakeaws, and records
// what it did in scenario seconds.
type Executor struct {
	sc      *scenario.Scenario
	fleet   *workload.FleetPlan
	ctrls   sut.Controllers
	backend backend.Backend
	check   *observe.Checker
	pods    *observe.Watch
	// ingresses sees Ingress-side changes applied (nil: they are not measured).
	ingresses *observe.IngressApplied
	// objects are the scenario's object groups and objApplied times their changes (nil: none).
	objects    *ObjectDeps
	objApplied *observe.ObjectsApplied
	rng        *rand.Rand
	clock      scenario.Clock
	t0         time.Time
	log        logr.Logger
	// client is the harness's own identity (not the controller's, whose writes are counted).
	client client.Client

	mu       sync.Mutex
	restarts []measure.Restart
	changes  []measure.Change
	gated    []gatedPod
	drifts   []measure.Drift
	events   []results.Event
	removed  *observe.Removed
	steadyAt *float64
	// callOffset and origin locate the measured phase in the fakeaws call log.
	callOffset int
	origin     time.Time
	// busyUntil is when the last container restart recovers: no steady state before it.
	busyUntil time.Time
	// patchSeq numbers the object changes ({{.Seq}} of a patch).
	patchSeq int
	faultsWG sync.WaitGroup
	// leadsWG tracks restarts with await none whose new leader is still awaited; leadErr is the
	// first such wait that failed.
	leadsWG sync.WaitGroup
	leadErr error
}

type gatedPod struct {
	pod string
	at  time.Time
}

// Deps are what the actions act on and observe with.
type Deps struct {
	Scenario    *scenario.Scenario
	Fleet       *workload.FleetPlan
	Controllers sut.Controllers
	AWS         backend.Backend
	Checker     *observe.Checker
	Watch       *observe.Watch
	// IngressApplied, when set, times the Ingress-side changes (nil: they are not measured).
	IngressApplied *observe.IngressApplied
	// Objects, when set, are the scenario's object groups, which patch steps change; ObjectsApplied
	// times those changes.
	Objects        *ObjectDeps
	ObjectsApplied *observe.ObjectsApplied
	// Removed receives the target groups of the TGBs the actions delete (the checker reads it).
	Removed *observe.Removed
	// Client is the harness's own identity (not the controller's, whose writes are counted).
	Client client.Client
	Logger logr.Logger
	Seed   int64
	// Clock converts the steps' scenario durations into wall time and wall instants into scenario
	// seconds since T0.
	Clock scenario.Clock
	// T0 is when the measured phase began; CallOffset and Origin locate it in the AWS call log.
	T0         time.Time
	CallOffset int
	Origin     time.Time
}

// New returns an executor for one measured phase.
func New(d Deps) *Executor {
	return &Executor{sc: d.Scenario, fleet: d.Fleet, ctrls: d.Controllers, backend: d.AWS, check: d.Checker, pods: d.Watch, ingresses: d.IngressApplied,
		objects: d.Objects, objApplied: d.ObjectsApplied, clock: d.Clock, t0: d.T0, log: d.Logger, client: d.Client, rng: rand.New(rand.NewPCG(uint64(d.Seed), 3)), removed: d.Removed,
		callOffset: d.CallOffset, origin: d.Origin}
}

// Recorded is what the actions did so far and the AWS calls since the measured phase began, as
// the measurements read them (gate flips as the watch saw them).
func (e *Executor) Recorded() (*measure.Input, error) {
	calls, err := e.backend.CallsSince(e.callOffset)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	in := &measure.Input{Calls: calls, Origin: e.origin, Restarts: append([]measure.Restart(nil), e.restarts...),
		Changes: append([]measure.Change(nil), e.changes...), Drifts: append([]measure.Drift(nil), e.drifts...),
		ChurnAt: churnTimes(e.events)}
	for i := range in.Changes {
		switch ch := &in.Changes[i]; {
		case ch.Ingress != "":
			if t, ok := e.ingresses.SeenAt(ch.ID); ok {
				ch.Observed = new(e.sec(t))
			}
		case ch.Object != "":
			if t, ok := e.objApplied.SeenAt(ch.ID); ok {
				ch.Observed = new(e.sec(t))
			}
			ch.ResourceID = e.objApplied.ResourceID(ch.ID)
		}
	}
	if e.steadyAt != nil {
		in.SteadyAt = new(*e.steadyAt)
	}
	for _, g := range e.gated {
		f := measure.GateFlip{Pod: g.pod, Pending: e.sec(g.at)}
		if t, ok := e.pods.Flip(g.pod, g.at); ok {
			f.True = new(e.sec(t))
		}
		in.GateFlips = append(in.GateFlips, f)
	}
	return in, nil
}

// Events are the actions' events so far (restarts, churn, faults), in scenario seconds.
func (e *Executor) Events() []results.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]results.Event(nil), e.events...)
}

// Wait waits for the faults still running in the background to end.
func (e *Executor) Wait() { e.faultsWG.Wait() }

// sec is the scenario seconds of wall instant t since the measured phase began.
func (e *Executor) sec(t time.Time) float64 { return e.clock.Seconds(e.t0, t) }

func (e *Executor) event(kind, detail string, at time.Time, end *time.Time) {
	ev := results.Event{AtSeconds: measure.Round3(e.sec(at)), Kind: kind, Detail: detail}
	if end != nil {
		ev.EndSeconds = measure.Round3(e.sec(*end))
	}
	e.mu.Lock()
	e.events = append(e.events, ev)
	e.mu.Unlock()
}

// Do performs one action step (timeline.Executor).
func (e *Executor) Do(ctx context.Context, index int, st scenario.Step) error {
	switch st.Action {
	case scenario.ActionRestart:
		return e.restart(ctx, st)
	case scenario.ActionChurn:
		return e.churn(ctx, index, st)
	case scenario.ActionContainerRestart:
		return e.containerRestart(ctx, st)
	case scenario.ActionAWSFault:
		return e.fault(ctx, st)
	case scenario.ActionAWSDrift:
		return e.drift(ctx, st)
	case scenario.ActionWait:
		return e.clock.Sleep(ctx, st.Duration.Duration)
	}
	return fmt.Errorf("unknown action %q", st.Action)
}
