package actions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/reports/results"
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
	fleet   *workload.Fleet
	ctrls   sut.Controllers
	backend backend.Backend
	check   *observe.Checker
	pods    *observe.Watch
	rng     *rand.Rand
	t0      time.Time
	log     logr.Logger
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
	faultsWG  sync.WaitGroup
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
	Fleet       *workload.Fleet
	Controllers sut.Controllers
	AWS         backend.Backend
	Checker     *observe.Checker
	Watch       *observe.Watch
	// Removed receives the target groups of the TGBs the actions delete (the checker reads it).
	Removed *observe.Removed
	// Client is the harness's own identity (not the controller's, whose writes are counted).
	Client client.Client
	Logger logr.Logger
	Seed   int64
	// T0 is when the measured phase began; CallOffset and Origin locate it in the AWS call log.
	T0         time.Time
	CallOffset int
	Origin     time.Time
}

// New returns an executor for one measured phase.
func New(d Deps) *Executor {
	return &Executor{sc: d.Scenario, fleet: d.Fleet, ctrls: d.Controllers, backend: d.AWS, check: d.Checker, pods: d.Watch,
		t0: d.T0, log: d.Logger, client: d.Client, rng: rand.New(rand.NewPCG(uint64(d.Seed), 3)), removed: d.Removed,
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

func (e *Executor) sec(t time.Time) float64 { return t.Sub(e.t0).Seconds() * e.sc.TimeScale }

func (e *Executor) wall(d time.Duration) time.Duration {
	return time.Duration(float64(d) / e.sc.TimeScale)
}

func (e *Executor) event(kind, detail string, at time.Time, end *time.Time) {
	ev := results.Event{AtSeconds: measure.Round3(e.sec(at)), Kind: kind, Detail: detail}
	if end != nil {
		ev.EndSeconds = measure.Round3(e.sec(*end))
	}
	e.mu.Lock()
	e.events = append(e.events, ev)
	e.mu.Unlock()
}

func (e *Executor) Do(ctx context.Context, _ int, st scenario.Step) error {
	switch st.Action {
	case scenario.ActionRestart:
		return e.restart(ctx, st)
	case scenario.ActionChurn:
		return e.churn(ctx, st)
	case scenario.ActionContainerRestart:
		return e.containerRestart(ctx, st)
	case scenario.ActionAWSFault:
		return e.fault(st)
	case scenario.ActionAWSDrift:
		return e.drift(ctx, st)
	case scenario.ActionWait:
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(e.wall(st.Duration.Duration)):
		}
	default:
		return fmt.Errorf("unknown action %q", st.Action)
	}
	return nil
}

// restart stops the leader and starts a replacement after the step's downtime. With await none
// it returns once the leader stopped: the replacement starts, and is recorded when it leads, in
// the background (awaitLeaders waits for that).
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
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(stopped.Add(e.wall(downtime)))):
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

// awaitLeaders waits until the new instance of every restart with await none leads.
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

func (e *Executor) record(ch workload.Change, at time.Time) {
	mc := measure.Change{ID: ch.ID, Kind: ch.Kind, TGB: ch.TGB.String(), TargetGroupARN: ch.TargetGroupARN, At: e.sec(at)}
	for _, t := range ch.Register {
		mc.Register = append(mc.Register, measure.Target{ID: t.ID, Port: t.Port})
	}
	for _, t := range ch.Deregister {
		mc.Deregister = append(mc.Deregister, measure.Target{ID: t.ID, Port: t.Port})
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(mc.Register)+len(mc.Deregister) > 0 {
		e.changes = append(e.changes, mc)
	}
	for _, p := range ch.Pods {
		e.gated = append(e.gated, gatedPod{pod: p.String(), at: at})
	}
	if ch.Kind == "remove-tgb" || len(mc.Deregister) > 0 && len(mc.Register) == 0 && ch.Kind == churnKindRemove {
		e.removed.Add(ch.TargetGroupARN, ch.TGB.String())
	}
}

const churnKindRemove = "remove-tgb"

func ipTGB(t workload.TGBInfo) bool { return t.TargetType == v1beta1.TargetTypeIP }

func (e *Executor) churn(ctx context.Context, st scenario.Step) error {
	kind := st.Kind
	if kind == scenario.ChurnReplaceNode {
		return e.replaceNodes(ctx, st)
	}
	var filter func(workload.TGBInfo) bool
	switch kind {
	case scenario.ChurnAddTGB, scenario.ChurnRemoveTGB:
	case scenario.ChurnRecreateService:
		filter = func(t workload.TGBInfo) bool { return ipTGB(t) && t.Pods > 0 }
	case scenario.ChurnStaleGate:
		filter = func(t workload.TGBInfo) bool { return ipTGB(t) && t.ReadinessGate && t.Pods > 0 }
	default:
		filter = ipTGB
	}
	var keys []types.NamespacedName
	if kind == scenario.ChurnAddTGB {
		keys = make([]types.NamespacedName, st.Services)
	} else {
		keys = e.fleet.ChooseTGBs(e.rng, st.Services, filter)
	}
	e.event("churn", fmt.Sprintf("%s × %d", kind, len(keys)), time.Now(), nil)
	// Draw every random choice first, in order, then apply the mutations concurrently so that a
	// churn step's changes land together (the mutations touch distinct TGBs).
	type job struct {
		key   types.NamespacedName
		kind  string
		delta int
	}
	jobs := make([]job, len(keys))
	for i, key := range keys {
		j := job{key: key, kind: kind}
		if j.kind == scenario.ChurnMixed {
			j.kind = []string{scenario.ChurnScale, scenario.ChurnRotate}[e.rng.IntN(2)]
		}
		if j.kind == scenario.ChurnScale {
			j.delta = 1 + e.rng.IntN(2)
			if info, ok := e.fleet.TGB(key); ok && info.Pods > 1 && e.rng.IntN(2) == 0 {
				j.delta = -min(j.delta, info.Pods-1)
			}
		}
		jobs[i] = j
	}
	return parallel(len(jobs), mutationWorkers, func(i int) error {
		j := jobs[i]
		at := time.Now()
		var ch workload.Change
		var err error
		switch j.kind {
		case scenario.ChurnScale:
			ch, err = e.fleet.ScaleService(ctx, j.key, j.delta)
		case scenario.ChurnRotate:
			ch, err = e.fleet.RotatePodIPs(ctx, j.key, 1)
		case scenario.ChurnAddTGB:
			ch, err = e.fleet.AddTGB(ctx)
		case scenario.ChurnRecreateService:
			ch, err = e.fleet.RecreateService(ctx, j.key, e.wall(st.Duration.Duration))
		case scenario.ChurnStaleGate:
			ch, err = e.fleet.StaleGate(ctx, j.key)
		case scenario.ChurnRemoveTGB:
			ch, err = e.fleet.RemoveTGB(ctx, j.key)
			if err == nil {
				ch.Kind = churnKindRemove
			}
		}
		if err != nil {
			return fmt.Errorf("churn %s %s: %w", j.kind, j.key, err)
		}
		e.record(ch, at)
		return nil
	})
}

// replaceNodes replaces st.Count nodes one after another (each replaces the oldest node still Ready,
// so they cannot run concurrently) and records every instance TGB's register and deregister
// changes, timed from the start of the node's replacement.
func (e *Executor) replaceNodes(ctx context.Context, st scenario.Step) error {
	e.event("churn", fmt.Sprintf("%s × %d", st.Kind, st.Count), time.Now(), nil)
	for range st.Count {
		at := time.Now()
		r, err := e.fleet.ReplaceNode(ctx)
		for _, ch := range r.Changes() {
			e.record(ch, at)
		}
		if err != nil {
			return fmt.Errorf("churn %s: %w", st.Kind, err)
		}
		e.log.V(1).Info("node replaced", "joined", r.Joined.Node.Name, "notReady", r.Replaced.Node.Name, "changes", len(r.Changes()))
	}
	return nil
}

// mutationWorkers bounds concurrent mutations of one step.
const mutationWorkers = 16

// parallel runs fn(0..n-1) on up to workers goroutines and returns the first error.
func parallel(n, workers int, fn func(i int) error) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next := make(chan int)
	for w := 0; w < min(n, workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return firstErr
}

func (e *Executor) containerRestart(ctx context.Context, st scenario.Step) error {
	// Prefer pods of gated TGBs; the filters also note each candidate's IP and target group.
	infos := map[types.NamespacedName]workload.PodInfo{}
	pick := func(gated bool) func(workload.PodInfo) bool {
		return func(p workload.PodInfo) bool {
			ok := p.TGB.TargetType == v1beta1.TargetTypeIP && p.TGB.ReadinessGate == gated
			if ok {
				infos[p.Key] = p
			}
			return ok
		}
	}
	pods := e.fleet.ChoosePods(e.rng, st.Pods, pick(true))
	if len(pods) < st.Pods {
		pods = append(pods, e.fleet.ChoosePods(e.rng, st.Pods-len(pods), pick(false))...)
	}
	e.event("containerRestart", fmt.Sprintf("%d pods", len(pods)), time.Now(), nil)
	defer func() {
		e.mu.Lock()
		e.busyUntil = time.Now().Add(e.wall(e.sc.Fleet.ContainerRestartDelay.Duration))
		e.mu.Unlock()
	}()
	port := e.fleet.Spec.Port
	return parallel(len(pods), mutationWorkers, func(i int) error {
		at := time.Now()
		ch, err := e.fleet.ContainerRestart(ctx, pods[i])
		if err != nil {
			return fmt.Errorf("container restart %s: %w", pods[i], err)
		}
		// The same pod object keeps its IP: AWS must deregister its target while the container is
		// down and register it again when it is back.
		if info, ok := infos[pods[i]]; ok && len(ch.Register)+len(ch.Deregister) == 0 {
			t := workload.Target{ID: info.IP, Port: port}
			ch.Register = []workload.Target{t}
			// A pod whose target is not in AWS yet (e.g. just scaled up) has nothing to deregister.
			if e.registered(info.TGB.TargetGroupARN, t) {
				ch.Deregister = []workload.Target{t}
			}
			if ch.TargetGroupARN == "" {
				ch.TargetGroupARN = info.TGB.TargetGroupARN
			}
		}
		e.record(ch, at)
		return nil
	})
}

// registered reports whether AWS holds the target in the group now (draining ones excluded).
func (e *Executor) registered(arn string, t workload.Target) bool {
	ths, err := e.backend.Targets(arn)
	if err != nil {
		return true
	}
	for _, th := range ths {
		if th.Target.ID == t.ID && th.Target.Port == t.Port && th.State != fakeaws.HealthDraining {
			return true
		}
	}
	return false
}

func (e *Executor) fault(st scenario.Step) error {
	now := time.Now()
	var restore func() error
	detail := st.Fault
	switch st.Fault {
	case scenario.FaultProfile:
		detail += " " + st.Profile
		if err := e.backend.SetProfile(st.Profile); err != nil {
			return err
		}
		restore = func() error { return backend.ApplyMeasuredLimits(e.backend, &e.sc.AWS) }
	case scenario.FaultLimit:
		for op, l := range st.Limits {
			if err := e.backend.SetLimit(op, l.Rate, l.Burst); err != nil {
				return err
			}
		}
		restore = func() error {
			for op := range st.Limits {
				if o, ok := e.sc.AWS.Overrides[op]; ok {
					_ = e.backend.SetLimit(op, o.Rate, o.Burst)
				} else {
					_ = e.backend.ClearLimit(op)
				}
			}
			return nil
		}
	case scenario.FaultErrors:
		detail += fmt.Sprintf(" %s %.0f%% %s", st.Operation, st.Rate*100, st.Code)
		if err := e.backend.SetErrorRate(backend.Operation(st.Operation), st.Rate, st.Code); err != nil {
			return err
		}
		restore = func() error { return e.backend.SetErrorRate(backend.Operation(st.Operation), 0, st.Code) }
	case scenario.FaultOutage:
		fnow, err := e.backend.Now()
		if err != nil {
			return err
		}
		if err := e.backend.AddOutage(fnow, st.Duration.Duration, st.AWSServices...); err != nil {
			return err
		}
	case scenario.FaultLatency:
		if err := e.backend.SetLatency(backend.Operation(st.Operation), st.Latency.Base.Duration, st.Latency.Jitter.Duration); err != nil {
			return err
		}
		restore = func() error {
			if l, ok := e.sc.AWS.Latency[opOrStar(st.Operation)]; ok {
				return e.backend.SetLatency(backend.Operation(st.Operation), l.Base.Duration, l.Jitter.Duration)
			}
			return e.backend.SetLatency(backend.Operation(st.Operation), 0, 0)
		}
	}
	var end *time.Time
	if st.Duration != nil && st.Duration.Duration > 0 {
		t := now.Add(e.wall(st.Duration.Duration))
		end = &t
		if restore != nil {
			e.faultsWG.Add(1)
			go func() {
				defer e.faultsWG.Done()
				time.Sleep(time.Until(t))
				if err := restore(); err != nil {
					e.log.Error(err, "ending AWS fault", "fault", st.Fault)
				}
			}()
		}
	}
	e.event("awsFault", detail, now, end)
	return nil
}

func opOrStar(o string) string {
	if o == "" {
		return "*"
	}
	return o
}

func (e *Executor) drift(ctx context.Context, st scenario.Step) error {
	now := time.Now()
	switch st.Kind {
	case scenario.DriftRemoveTarget:
		keys := e.fleet.ChooseTGBs(e.rng, st.Count, func(t workload.TGBInfo) bool { return t.Pods > 0 })
		for _, key := range keys {
			info, _ := e.fleet.TGB(key)
			ths, err := e.backend.Targets(info.TargetGroupARN)
			if err != nil || len(ths) == 0 {
				continue
			}
			th := ths[e.rng.IntN(len(ths))]
			at := time.Now()
			if err := e.backend.RemoveTarget(info.TargetGroupARN, th.Target); err != nil {
				return fmt.Errorf("drift: removing %s from %s: %w", th.Target.ID, key, err)
			}
			e.mu.Lock()
			e.drifts = append(e.drifts, measure.Drift{ID: fmt.Sprintf("drift-%d", len(e.drifts)+1), TGB: key.String(),
				TargetGroupARN: info.TargetGroupARN, Target: &measure.Target{ID: th.Target.ID, Port: th.Target.Port}, At: e.sec(at)})
			e.mu.Unlock()
		}
	case scenario.DriftRevokeIngress:
		objs, err := e.pods.Objects(ctx)
		if err != nil {
			return err
		}
		want, err := objs.Desired()
		if err != nil {
			return err
		}
		keys := e.fleet.ChooseTGBs(e.rng, st.Count, func(t workload.TGBInfo) bool { return t.Networking != workload.NetworkingNone })
		// TGBs sharing a security group may want the same rule: revoke it once, count the drift for each.
		revoked := map[string]bool{}
		for _, key := range keys {
			d := want[key]
			if len(d.Rules) == 0 {
				continue
			}
			r := d.Rules[e.rng.IntN(len(d.Rules))]
			at := time.Now()
			rule := fakeaws.Rule{Protocol: r.Protocol, FromPort: r.FromPort, ToPort: r.ToPort, CIDR: r.CIDR, SourceGroupID: r.SourceSecurityGroupID}
			if rk := fmt.Sprintf("%s|%+v", r.SecurityGroupID, rule); !revoked[rk] {
				if err := e.backend.RevokeIngress(r.SecurityGroupID, rule); err != nil {
					return fmt.Errorf("drift: revoking a rule of %s for %s: %w", r.SecurityGroupID, key, err)
				}
				revoked[rk] = true
			}
			e.mu.Lock()
			e.drifts = append(e.drifts, measure.Drift{ID: fmt.Sprintf("drift-%d", len(e.drifts)+1), TGB: key.String(),
				SecurityGroupID: r.SecurityGroupID, At: e.sec(at)})
			e.mu.Unlock()
		}
	}
	e.event("awsDrift", fmt.Sprintf("%s × %d", st.Kind, st.Count), now, nil)
	return nil
}

// WaitSteady polls until the run is steady: nothing recorded is pending and the invariants hold.
// The cheap test comes first: while a recorded change or drift is not applied in the call log, or a
// recorded gate has not turned True, the run cannot be steady, and the invariant check (every
// binding, pod and target group: a good fraction of a core at 10,000 bindings) is not run, so it
// does not compete with the controller under test for the CPU while that works through a restart.
func (e *Executor) WaitSteady(ctx context.Context, _ int, timeout time.Duration) (bool, error) {
	deadline := time.Now().Add(timeout)
	poll := max(20*time.Millisecond, min(500*time.Millisecond, e.wall(time.Second)))
	for {
		at := time.Now()
		e.mu.Lock()
		busy := at.Before(e.busyUntil)
		e.mu.Unlock()
		if !busy {
			pending, err := e.pending(ctx)
			if err != nil {
				return false, err
			}
			busy = pending > 0
		}
		if !busy {
			inv, err := e.check.Check(ctx, false)
			if err != nil {
				return false, err
			}
			if inv.Passed {
				s := e.sec(at)
				e.mu.Lock()
				e.steadyAt = &s
				e.mu.Unlock()
				return true, nil
			}
		}
		if time.Now().After(deadline) {
			e.mu.Lock()
			e.steadyAt = nil
			e.mu.Unlock()
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(observe.PollAfter(poll, time.Since(at))):
		}
	}
}

// pending counts the recorded changes and drifts that AWS does not reflect yet, and the recorded
// readiness gates not yet seen turning True. The latter also keeps a check that polls the watch
// cache from passing before the cache has seen the run's own writes (a gate set back to False).
func (e *Executor) pending(ctx context.Context) (int, error) {
	in, err := e.Recorded()
	if err != nil {
		return 0, err
	}
	n := measure.Pending(in)
	for _, g := range in.GateFlips {
		if g.True == nil && e.pods.Exists(g.Pod) {
			n++ // a pod deleted since (scaled down) has no gate left to flip
		}
	}
	return n, nil
}
