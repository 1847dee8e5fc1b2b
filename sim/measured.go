package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"time"

	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/actions"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/objects"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/record"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
	"github.com/restartsim/restartsim/sim/timeline"
)

// measuredPhase is the record of a run's measured phase (the live recorders keep theirs).
type measuredPhase struct {
	ex         *actions.Executor
	clock      scenario.Clock
	t0, end    time.Time
	invariants results.Invariants
	// compiled counts the templates and CEL expressions compiled while the timeline ran: none,
	// as the scenario's were compiled before.
	compiled int64
}

// seconds is the scenario seconds of wall instant t since the measured phase began.
func (m *measuredPhase) seconds(t time.Time) float64 { return m.clock.Seconds(m.t0, t) }

// ingressPollInterval is how often AWS is read for Ingress-side and object changes applied: a quarter of a
// scenario second, the resolution of their latency, but no busier than every 20 ms of wall time.
func ingressPollInterval(clock scenario.Clock) time.Duration {
	return max(20*time.Millisecond, clock.Wall(250*time.Millisecond))
}

// finalSettleTimeout bounds the wait of the final check for the simulated kubelet and endpoint
// controller to catch up with the controller's last writes (they take milliseconds).
const finalSettleTimeout = 10 * time.Second

// measure switches AWS to the measured limits, runs the timeline, checks the final invariants and
// stops the controller and the watch.
func (r *strategyRun) measure(ctx context.Context) (*measuredPhase, error) {
	if err := backend.ApplyMeasuredLimits(r.cloud, &r.sc.AWS); err != nil {
		return nil, fmt.Errorf("switching to the measured AWS limits: %w", err)
	}
	clock := r.sc.Clock()
	offset := 0
	if calls, err := r.cloud.CallsSince(0); err == nil {
		offset = len(calls)
	}
	origin, err := r.cloud.Now()
	if err != nil {
		return nil, err
	}
	var ingresses *observe.IngressApplied
	if r.hasLoadBalancers() {
		pollCtx, stopPolling := context.WithCancel(ctx)
		defer stopPolling()
		ingresses = observe.StartIngressApplied(pollCtx, r.cloud, r.spec.ClusterName, ingressPollInterval(clock))
	}
	var objDeps *actions.ObjectDeps
	var objApplied *observe.ObjectsApplied
	if r.objects != nil {
		pollCtx, stopPolling := context.WithCancel(ctx)
		defer stopPolling()
		objDeps = r.objects
		objApplied = observe.StartObjectsApplied(pollCtx, r.objectsWatch, ingressPollInterval(clock))
	}
	m := &measuredPhase{clock: clock, t0: clock.Now()}
	m.ex = actions.New(actions.Deps{Scenario: r.sc, Fleet: r.fleet, Controllers: r.ctrls, AWS: r.cloud, Checker: r.checker,
		Watch: r.watch, IngressApplied: ingresses, Objects: objDeps, ObjectsApplied: objApplied, Removed: r.removed, Client: r.client, Logger: r.log, Seed: r.seed,
		Clock: clock, T0: m.t0, CallOffset: offset, Origin: origin})
	if err := r.runTimeline(m); err != nil {
		return nil, err
	}
	r.log.Info("timeline done", "scenarioSeconds", measure.Round3(m.seconds(m.end)), "compiledDuringTimeline", m.compiled)
	if m.invariants, err = r.checker.CheckSettled(ctx, finalSettleTimeout); err != nil {
		return nil, fmt.Errorf("final invariants: %w", err)
	}
	r.stopControllers()
	r.stopWatch()
	r.log.Info("controllers stopped")
	return m, nil
}

func (r *strategyRun) runTimeline(m *measuredPhase) error {
	sc := r.sc
	r.recorders.Start(record.AtMeasuredPhase, m.t0)
	eng := &timeline.Engine{Clock: m.clock, Exec: m.ex, Logger: r.log}
	plan := timeline.Plan(sc.Timeline, rand.New(rand.NewPCG(uint64(r.seed), 2)))
	r.log.Info("running the timeline", "steps", len(plan))
	r.progress.measuring()
	// Ends the waits for new leaders (restarts with await none) should the run fail.
	tlCtx, stopTL := context.WithCancel(r.runCtx)
	defer stopTL()
	running := startPhase(r.o.Progress, fmt.Sprintf("running the timeline (%d steps)", len(plan)))
	compiled := objects.Compilations()
	_, err := eng.Run(tlCtx, m.t0, plan)
	if err == nil {
		// The measurements need every restart's leading time.
		err = m.ex.AwaitLeaders(tlCtx)
	}
	m.end = m.clock.Now()
	m.compiled = objects.Compilations() - compiled
	running.End()
	r.recorders.Stop()
	if err != nil {
		stopTL() // a failed run does not wait out its AWS faults
	}
	m.ex.Wait()
	if err != nil {
		if re := refusedCause(r.runCtx); re != nil {
			return fmt.Errorf("measured phase: %w", re)
		}
		return sut.MeasuredFailure(r.runCtx, err)
	}
	return nil
}

// collect turns what the actions, AWS, the API server and the controller instances recorded into
// the run's measurements.
func (r *strategyRun) collect(m *measuredPhase) (*strategyOutcome, error) {
	seen := r.ctrls.Observed()
	if r.resumes() {
		r.log.Info("resume fast path", "reconciles", seen.ResumeReconciles)
	}
	in, err := m.ex.Recorded()
	if err != nil {
		return nil, err
	}
	if r.o.AWSEndpoint != "" {
		all, _ := r.cloud.CallsSince(0)
		_ = backend.WriteCallLog(filepath.Join(r.dir, "aws-calls.jsonl"), all)
	}
	toSec := m.seconds
	in.End, in.TargetsHold = toSec(m.end), m.invariants.Passed
	r.addAudit(in, m.t0, toSec)
	addObserved(in, seen, toSec)
	r.recorders.Collect(in, record.Conversion{Seen: seen, ToSec: toSec})
	r.watch.Release() // the run keeps only the records
	out := measure.Run(in)
	if r.resumes() {
		out.Summary.ResumeReconciles = ptr.To(int(seen.ResumeReconciles))
	}
	n := r.fleet.TGBCount()
	out.Summary.Objects = results.Objects{TGBs: n, Services: n, EndpointSlices: n, Pods: r.spec.TGBs * r.spec.PodsPerService,
		Nodes: r.spec.Nodes, TargetGroups: n}
	if r.objects != nil {
		out.Summary.Objects.Groups = map[string]int{}
		for _, g := range r.objects.Fleet.Groups() {
			out.Summary.Objects.Groups[g] = r.objects.Fleet.Count(g)
		}
	}
	return &strategyOutcome{name: r.strat.Name, out: out, invariants: m.invariants, events: m.ex.Events(),
		k8sVersion: r.env.KubernetesVersion, input: in, fleetSetup: r.fleetSetup}, nil
}

// addAudit adds the controller's Kubernetes requests: from the audit log, or on a kubeconfig
// cluster without one, the writes the watch saw (checkpoint annotation and readiness-gate changes;
// status updates and events are not counted).
func (r *strategyRun) addAudit(in *measure.Input, t0 time.Time, toSec func(time.Time) float64) {
	if r.env.AuditLog == "" {
		in.Audit = r.watch.WatchedWrites(t0, toSec)
		return
	}
	var err error
	if in.Audit, err = measure.ReadAudit(r.env.AuditLog, env.ControllerUser, toSec); err != nil {
		r.log.Error(err, "reading the audit log")
		return
	}
	in.HasAudit = true
}

// addObserved adds what the controller instances showed of themselves.
func addObserved(in *measure.Input, seen sut.Observations, toSec func(time.Time) float64) {
	for _, c := range seen.TakeoverCPU {
		in.ReplacementCPU = append(in.ReplacementCPU, measure.CPUSample{At: toSec(c.At), Seconds: c.Seconds})
	}
	for i, at := range seen.AtStops {
		if i < len(in.Restarts) {
			in.Restarts[i].AtStop = at
		}
	}
	for _, t := range seen.CachesSynced {
		in.CachesSynced = append(in.CachesSynced, toSec(t))
	}
}
