package observe

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/poll"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// CheckpointAnnotation is where the controller keeps its checkpoint (every checkpoint strategy).
const CheckpointAnnotation = "elbv2.k8s.aws/checkpoint"

// maxViolations bounds the violations listed per run (the counts stay exact).
const maxViolations = 200

// Checker compares AWS state with the desired state derived from the cluster.
type Checker struct {
	watch   *Watch
	backend backend.Backend
	removed *Removed
	// lb, when set, also checks the load balancer stacks of the watched Ingresses and Services.
	lb *lbCheck
	// objs, when set, also checks every object of the scenario's object groups.
	objs *Objects
	// instances, when set, reads the Nodes and NodeClaims every launched EC2 instance must be named by.
	instances client.Reader
	// tally is the last check's count of converged bindings, for progress output.
	tally atomic.Pointer[Tally]
}

// Tally is how many of a check's bindings were converged: their targets, readiness gates and
// security group rules as desired.
type Tally struct{ Converged, Bindings int }

// tallyOf counts the bindings that have no violation; bad may name other things (object groups,
// load balancers), which do not count.
func tallyOf[V any](bindings map[string]V, bad map[string]bool) *Tally {
	t := &Tally{Bindings: len(bindings)}
	for name := range bindings {
		if !bad[name] {
			t.Converged++
		}
	}
	return t
}

// Converged is the last check's tally (zero before the first check).
func (k *Checker) Converged() Tally {
	if t := k.tally.Load(); t != nil {
		return *t
	}
	return Tally{}
}

// lbCheck is what the expected load balancers depend on besides the objects.
type lbCheck struct{ clusterName, ingressClass string }

// NewChecker checks the objects w sees against b; the target groups in removed (nil: none) must
// end up empty.
func NewChecker(w *Watch, b backend.Backend, removed *Removed) *Checker {
	return &Checker{watch: w, backend: b, removed: removed}
}

// CheckLoadBalancers makes every check also compare AWS's load balancers with the ones the watched
// Ingresses (of ingressClass) and Services ask for, as LBC tagging them with clusterName deploys
// them. Only an in-process fakeaws can be checked (see LoadBalancerState).
func (k *Checker) CheckLoadBalancers(clusterName, ingressClass string) {
	k.lb = &lbCheck{clusterName: clusterName, ingressClass: ingressClass}
}

// CheckObjects makes every check also require each object of the scenario's object groups to
// exist, be ready and meet its group's invariant: every condition the scenario declares.
func (k *Checker) CheckObjects(o *Objects) { k.objs = o }

// checkObjects adds the object groups' findings.
func (k *Checker) checkObjects(ctx context.Context, f *findings) error {
	if k.objs == nil {
		return nil
	}
	st, err := k.objs.Status(ctx)
	if err != nil {
		return fmt.Errorf("object groups: %w", err)
	}
	for _, g := range st.Groups {
		if missing := g.Count - g.Present; missing > 0 {
			f.inv.Missing += missing
			f.add("group "+g.Name, "object-missing", fmt.Sprintf("%d of %d objects do not exist", missing, g.Count))
		}
		f.inv.Missing += g.Present - g.Ready
		for _, o := range g.NotReady {
			f.add(g.Name+"/"+o.Key.String(), "object-not-ready", o.Reason)
		}
		if more := g.Present - g.Ready - len(g.NotReady); more > 0 {
			f.add("group "+g.Name, "object-not-ready", fmt.Sprintf("%d more objects not ready", more))
		}
	}
	for _, v := range st.Violations {
		if v.Orphan != "" {
			if f.inv.Orphaned == nil {
				f.inv.Orphaned = map[string]int{}
			}
			f.inv.Orphaned[v.Orphan]++
			f.add(v.Group+"/"+v.Key.String(), results.ViolationOrphan, v.String())
			continue
		}
		f.inv.ObjectsFailing++
		f.add(v.Group+"/"+v.Key.String(), "object-invariant", v.String())
	}
	return nil
}

// Removed are the target groups of TGBs the run deleted, by ARN, with the TGB's name: safe for
// concurrent use by the actions that delete and the checks that read.
type Removed struct {
	mu  sync.Mutex
	tgs map[string]string
}

// Add records that the TGB name, bound to the target group arn, was deleted.
func (r *Removed) Add(arn, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tgs == nil {
		r.tgs = map[string]string{}
	}
	r.tgs[arn] = name
}

func (r *Removed) snapshot() map[string]string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.tgs)
}

// Paced is how long a polling loop waits after a check: at least every, and long enough that the
// checks use at most a quarter of one core (a check reads every binding, pod and target group; at
// 10,000 bindings it costs a good fraction of a second, and polling it back to back would starve
// the controller under test).
func Paced(every time.Duration) poll.Pace {
	return func(took time.Duration) time.Duration { return max(every, 3*took) }
}

// ErrUnsettled is a check that judged nothing: in the snapshot it read, the simulated kubelet or
// endpoint controller had yet to catch up with the pods (a readiness gate turned True while the pod
// is not Ready yet, or its endpoint not ready yet). Desired state derived from such a snapshot is
// neither the old nor the new one, and would blame the controller for the simulator's delay.
var ErrUnsettled = errors.New("the simulated kubelet or endpoint controller has not caught up")

// Check returns the invariants now, or ErrUnsettled. healthy additionally requires every desired
// target to be healthy (the warm-up's convergence criterion).
func (k *Checker) Check(ctx context.Context, healthy bool) (results.Invariants, error) {
	objs, err := k.watch.Objects(ctx)
	if err != nil {
		return results.Invariants{}, err
	}
	if n := k.watch.sim.Lagging(objs.Pods, objs.Slices); n > 0 {
		return results.Invariants{}, fmt.Errorf("%w: %d pods or Services behind", ErrUnsettled, n)
	}
	return k.judge(ctx, objs, healthy)
}

// CheckSettled is Check once the simulator has caught up, waiting at most timeout for a snapshot
// in which it has. A simulator kept busy all that time (a controller rewriting gates without end)
// is judged as it is then.
func (k *Checker) CheckSettled(ctx context.Context, timeout time.Duration) (results.Invariants, error) {
	var inv results.Invariants
	err := poll.Until(ctx, timeout, Paced(10*time.Millisecond), func() (bool, error) {
		var err error
		inv, err = k.Check(ctx, false)
		if errors.Is(err, ErrUnsettled) {
			return false, nil
		}
		return true, err
	})
	if !errors.Is(err, poll.ErrTimeout) {
		return inv, err
	}
	objs, err := k.watch.Objects(ctx)
	if err != nil {
		return results.Invariants{}, err
	}
	return k.judge(ctx, objs, false)
}

// judge compares AWS with the desired state derived from objs.
func (k *Checker) judge(ctx context.Context, objs tgbexpect.Objects, healthy bool) (results.Invariants, error) {
	want, err := objs.Desired()
	if err != nil {
		return results.Invariants{}, err
	}
	f := &findings{bad: map[string]bool{}, pods: make(map[string]*corev1.Pod, len(objs.Pods)), sgs: map[string]fakeaws.SecurityGroup{}}
	for _, p := range objs.Pods {
		f.pods[p.Namespace+"/"+p.Name] = p
	}
	byName := make(map[string]tgbexpect.DesiredTGB, len(want))
	for key, d := range want {
		byName[key.String()] = d
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		if err := k.checkTargets(f, name, byName[name], healthy); err != nil {
			return f.inv, err
		}
		f.checkGates(name, byName[name])
		if err := k.checkRules(f, name, byName[name]); err != nil {
			return f.inv, err
		}
	}
	k.tally.Store(tallyOf(byName, f.bad))
	if len(f.bad) > 0 {
		// A TGB whose AWS state differs from the desired one is a violation whatever its checkpoint
		// says; one with a saved checkpoint is also named as such, since nothing short of a drift check
		// or the deferred full reconcile will look at it again (the sim does not recompute the hash:
		// any saved checkpoint over wrong AWS state is suspect).
		for _, t := range objs.TGBs {
			name := t.Namespace + "/" + t.Name
			if cp := t.Annotations[CheckpointAnnotation]; f.bad[name] && cp != "" {
				f.add(name, "stale-checkpoint", "checkpoint "+cp+" saved while AWS differs from the desired state")
			}
		}
	}
	k.checkRemoved(f)
	for _, check := range []func(context.Context, *findings) error{k.checkLoadBalancers, k.checkObjects, k.checkInstances} {
		if err := check(ctx, f); err != nil {
			return f.inv, err
		}
	}
	f.inv.Passed = f.inv.Missing == 0 && f.inv.Stale == 0 && f.inv.ObjectsFailing == 0 && f.inv.OrphanCount() == 0 &&
		f.inv.LeakedInstances == 0 && len(f.inv.Violations) == 0
	return f.inv, nil
}

// findings accumulate one check's invariants.
type findings struct {
	inv  results.Invariants
	bad  map[string]bool // TGBs with a violation
	pods map[string]*corev1.Pod
	sgs  map[string]fakeaws.SecurityGroup // security groups read so far
}

func (f *findings) add(tgb, kind, detail string) {
	f.bad[tgb] = true
	if len(f.inv.Violations) < maxViolations {
		f.inv.Violations = append(f.inv.Violations, results.Violation{TGB: tgb, Kind: kind, Detail: detail})
	}
}

// checkTargets compares a binding's registered targets (draining ones aside) with the desired ones.
func (k *Checker) checkTargets(f *findings, name string, d tgbexpect.DesiredTGB, healthy bool) error {
	have, err := k.backend.Targets(d.TargetGroupARN)
	if err != nil {
		return fmt.Errorf("targets of %s: %w", name, err)
	}
	live := map[string]fakeaws.TargetHealth{}
	for _, th := range have {
		if th.State != fakeaws.HealthDraining {
			live[targetKey(th.Target.ID, th.Target.Port)] = th
		}
	}
	wantSet := map[string]bool{}
	for _, t := range d.Targets {
		tk := targetKey(t.ID, t.Port)
		wantSet[tk] = true
		th, ok := live[tk]
		switch {
		case !ok:
			f.inv.Missing++
			f.add(name, "missing-target", tk)
		case healthy && th.State != fakeaws.HealthHealthy:
			f.inv.Missing++
			f.add(name, "unhealthy-target", tk+" is "+th.State)
		}
	}
	for tk := range live {
		if !wantSet[tk] {
			f.inv.Stale++
			f.add(name, "stale-target", tk)
		}
	}
	return nil
}

func (f *findings) checkGates(name string, d tgbexpect.DesiredTGB) {
	for _, pk := range d.GatedPods {
		if p := f.pods[pk.String()]; p != nil && !gateTrue(p, gateType(name)) {
			f.add(name, "readiness-gate", pk.String()+" gate not True")
		}
	}
}

// checkRules checks that the binding's security group rules are in place.
func (k *Checker) checkRules(f *findings, name string, d tgbexpect.DesiredTGB) error {
	for _, r := range d.Rules {
		sg, ok := f.sgs[r.SecurityGroupID]
		if !ok {
			var err error
			if sg, err = k.backend.SecurityGroup(r.SecurityGroupID); err != nil {
				if k.backend.Handler() == nil {
					// A standalone fakeaws whose /state cannot be read (it fails to encode unlimited
					// buckets): security group rules cannot be checked on this endpoint.
					continue
				}
				return err
			}
			f.sgs[r.SecurityGroupID] = sg
		}
		if !hasRule(sg, r) {
			f.add(name, "sg-rule", fmt.Sprintf("%s lacks %s %d-%d from %s%s", r.SecurityGroupID, r.Protocol, r.FromPort, r.ToPort, r.CIDR, r.SourceSecurityGroupID))
		}
	}
	return nil
}

// checkRemoved requires the target groups of deleted TGBs to end up empty.
func (k *Checker) checkRemoved(f *findings) {
	for arn, name := range k.removed.snapshot() {
		have, err := k.backend.Targets(arn)
		if err != nil {
			continue
		}
		for _, th := range have {
			if th.State != fakeaws.HealthDraining {
				f.inv.Stale++
				f.add(name, "stale-target", targetKey(th.Target.ID, th.Target.Port)+" (TGB deleted)")
			}
		}
	}
}

func targetKey(id string, port int32) string { return fmt.Sprintf("%s:%d", id, port) }

// gateType is the readiness-gate condition of a TGB named ns/name.
func gateType(tgb string) string {
	for i := len(tgb) - 1; i >= 0; i-- {
		if tgb[i] == '/' {
			return "target-health.elbv2.k8s.aws/" + tgb[i+1:]
		}
	}
	return "target-health.elbv2.k8s.aws/" + tgb
}

func gateTrue(p *corev1.Pod, cond string) bool {
	for _, c := range p.Status.Conditions {
		if string(c.Type) == cond {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// hasRule reports whether sg grants the desired rule r, alone or inside a wider rule of the same
// source (LBC merges the ports one source group may reach into one range).
func hasRule(sg fakeaws.SecurityGroup, r tgbexpect.Rule) bool {
	want := fakeaws.Rule{Protocol: r.Protocol, FromPort: r.FromPort, ToPort: r.ToPort, CIDR: r.CIDR, SourceGroupID: r.SourceSecurityGroupID}
	for _, have := range sg.Ingress {
		if have.Covers(want) {
			return true
		}
	}
	return false
}

func (k *Checker) checkLoadBalancers(ctx context.Context, f *findings) error {
	state, ok := k.backend.(LoadBalancerState)
	if k.lb == nil || !ok {
		return nil
	}
	objs, err := k.watch.LoadBalancerObjects(ctx)
	if err != nil || objs == nil {
		return err
	}
	objs.ClusterName, objs.IngressClass = k.lb.clusterName, k.lb.ingressClass
	now, err := k.backend.Now()
	if err != nil {
		return err
	}
	want, bad := ExpectedLoadBalancers(*objs)
	for _, v := range append(bad, CheckLoadBalancers(state, want, now)...) {
		f.add(v.TGB, v.Kind, v.Detail)
	}
	return nil
}
