package controller

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/controller/internal/readinessgate"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testwait"
)

// Each test runs one scenario twice: with the reference controller, which must behave, and with
// the mutant, which must show its bug (so a dead mutant hook fails the test). Each bug shows as
// nothing happening, so "shows the bug" is checked once the mutant is idle (waitIdle): in its place
// the reference is still at work, a requeue or a drift check away from repairing it.
func withMutant(opts Options, m string) Options {
	opts.Mutant, opts.AllowMutants = m, true
	return opts
}

// forEachVariant runs fn as subtests "reference" and the mutant.
func forEachVariant(t *testing.T, mutant string, fn func(t *testing.T, mutant string)) {
	for _, m := range []string{"", mutant} {
		name := "reference"
		if m != "" {
			name = m
		}
		t.Run(name, func(t *testing.T) { fn(t, m) })
	}
}

// idleHorizon is how far away a requeue may be for the controller to count as idle: further than
// the test runs (the default drift check, minutes away, is not a repair the test waits for).
const idleHorizon = time.Minute

// waitIdle waits until the controller has nothing left to do for the binding ns/name: more than
// after reconciles of it finished, the last without error and asking for no requeue within
// idleHorizon, and no reconcile runs nor waits in the work queue, on two looks in a row with no
// reconcile between them.
func (r *running) waitIdle(t *testing.T, ns, name string, after int) {
	t.Helper()
	idleLooks, seen := 0, -1
	testwait.UntilDetail(t, 10*time.Second, fmt.Sprintf("the controller idle on %s/%s after its reconcile %d", ns, name, after), func() (bool, string) {
		n := r.reconciles.count(ns, name)
		result, requeue := r.reconciles.last(ns, name)
		active := testutil.ToFloat64(r.c.metrics.ActiveWorkers.WithLabelValues(Name))
		queued := r.queueDepth(t)
		idle := n > after && result != metrics.ResultError && (requeue == 0 || requeue > idleHorizon) && active == 0 && queued == 0
		switch {
		case !idle:
			idleLooks = 0
		case n == seen:
			idleLooks++
		default:
			idleLooks = 1
		}
		seen = n
		return idleLooks >= 2, fmt.Sprintf("%d reconciles, the last %q asking a requeue after %v; %v running, %v queued", n, result, requeue, active, queued)
	})
}

// queueDepth is the controller's restartsim_controller_workqueue_depth.
func (r *running) queueDepth(t *testing.T) float64 {
	t.Helper()
	families, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "restartsim_controller_workqueue_depth" {
			for _, m := range f.GetMetric() {
				return m.GetGauge().GetValue()
			}
		}
	}
	t.Fatal("no restartsim_controller_workqueue_depth")
	return 0
}

// stillOnceIdle fails unless the mutant's bug, cond, holds once the controller is idle on the
// binding ns/name after its reconcile after.
func stillOnceIdle(t *testing.T, r *running, ns, name string, after int, what string, cond func() bool) {
	t.Helper()
	r.waitIdle(t, ns, name, after)
	if !cond() {
		t.Fatalf("mutant did not show its bug: %s ended", what)
	}
}

// gatedBackend sets up one gated pod whose target is registered and healthy, its gate True and the
// checkpoint saved, by a reference controller that is stopped again.
func gatedBackend(t *testing.T, ns, arn string) epRef {
	t.Helper()
	eps := backend(t, ns, "web", 90, 1, string(readinessgate.ConditionType("web")))
	setSliceEndpoints(t, ns, "web-slice", epRef{pod: eps[0].pod, ip: eps[0].ip}) // held back by the gate
	create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
	ref := startController(t, ns, testOptions(CheckpointAnnotation))
	testwait.Until(t, 10*time.Second, "gate True", func() bool { return gateStatus(t, ns, eps[0].pod, "web") == corev1.ConditionTrue })
	setSliceEndpoints(t, ns, "web-slice", eps...)
	testwait.Until(t, 10*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
	ref.stop()
	return eps[0]
}

func targetHealthy(t *testing.T, arn, ip string) bool {
	t.Helper()
	hs, err := aws_.Targets(arn)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if h.Target.ID == ip && h.State == fakeaws.HealthHealthy {
			return true
		}
	}
	return false
}

// TestMutantNoClearOnRegister (seed commit 2): a container restart keeps the pod object; the
// target is deregistered and registered again. The reference keeps reconciling until the gate is
// True again; the mutant saves the checkpoint on register and stops, so the gate stays False
// although the target is healthy.
func TestMutantNoClearOnRegister(t *testing.T) {
	forEachVariant(t, MutantNoClearOnRegister, func(t *testing.T, mutant string) {
		ns := newNamespace(t)
		arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
		ep := gatedBackend(t, ns, arn)
		r := startController(t, ns, withMutant(testOptions(CheckpointAnnotation), mutant))

		pod := mkPod(ns, ep.pod)
		setContainersReady(t, pod, false)
		setSliceEndpoints(t, ns, "web-slice", epRef{pod: ep.pod, ip: ep.ip})
		testwait.Until(t, 10*time.Second, "target deregistered", func() bool { return len(liveTargets(t, arn)) == 0 })
		testwait.Until(t, 10*time.Second, "gate False", func() bool { return gateStatus(t, ns, ep.pod, "web") == corev1.ConditionFalse })
		beforeReady := r.reconciles.count(ns, "web") // the pod turning ready is reconciled after this
		setContainersReady(t, pod, true)
		testwait.Until(t, 10*time.Second, "target healthy again", func() bool { return targetHealthy(t, arn, ep.ip) })

		if mutant == "" {
			testwait.Until(t, 10*time.Second, "gate True again", func() bool { return gateStatus(t, ns, ep.pod, "web") == corev1.ConditionTrue })
			return
		}
		stillOnceIdle(t, r, ns, "web", beforeReady, "gate stuck False", func() bool { return gateStatus(t, ns, ep.pod, "web") == corev1.ConditionFalse })
		if !checkpoint.IsSet(getTGB(t, ns, "web").Annotations) {
			t.Fatal("mutant: checkpoint not saved while the gate is pending")
		}
	})
}

// TestMutantSkipAfterCleanup (#4343): the backend Service disappears (cleanup deregisters every
// target) and comes back with the same endpoints. The reference registers the targets again; the
// mutant kept its checkpoint through the cleanup and early-exits.
func TestMutantSkipAfterCleanup(t *testing.T) {
	forEachVariant(t, MutantSkipAfterCleanup, func(t *testing.T, mutant string) {
		ns := newNamespace(t)
		arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
		eps := backend(t, ns, "web", 91, 2)
		create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
		r := startController(t, ns, withMutant(testOptions(CheckpointAnnotation), mutant))
		testwait.Until(t, 10*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })

		if err := k8s.Delete(context.Background(), mkService(ns, "web", 0)); err != nil {
			t.Fatal(err)
		}
		testwait.Until(t, 10*time.Second, "targets deregistered", func() bool { return len(liveTargets(t, arn)) == 0 })
		testwait.Until(t, 10*time.Second, "Ready=False ServiceNotFound", func() bool { return readyReason(t, ns, "web") == ReasonServiceNotFound })
		early := testutil.ToFloat64(r.c.metrics.Reconciles.WithLabelValues(metrics.ResultEarlyExit))
		beforeReturn := r.reconciles.count(ns, "web") // the Service's return is reconciled after this
		create(t, mkService(ns, "web", 0))

		if mutant == "" {
			testwait.Until(t, 10*time.Second, "targets registered again", func() bool { return sameSet(liveTargets(t, arn), targetKeys(eps)...) })
			testwait.Until(t, 10*time.Second, "Ready=True", func() bool { return readyReason(t, ns, "web") == "Reconciled" })
			return
		}
		stillOnceIdle(t, r, ns, "web", beforeReturn, "targets missing", func() bool { return len(liveTargets(t, arn)) == 0 })
		if n := testutil.ToFloat64(r.c.metrics.Reconciles.WithLabelValues(metrics.ResultEarlyExit)); n <= early {
			t.Fatal("mutant: the Service's return was not an early exit")
		}
	})
}

// TestMutantStaleGateRead (#4737): the checkpoint matches but the pod's gate condition is present
// and not True (as after a same-IP re-registration). The reference does not early-exit and flips
// the gate True from the target's health; the mutant early-exits and the gate stays stuck.
func TestMutantStaleGateRead(t *testing.T) {
	forEachVariant(t, MutantStaleGateRead, func(t *testing.T, mutant string) {
		ns := newNamespace(t)
		arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
		ep := gatedBackend(t, ns, arn)
		p := &corev1.Pod{}
		if err := k8s.Get(context.Background(), clientKey(ns, ep.pod), p); err != nil {
			t.Fatal(err)
		}
		want := corev1.PodCondition{Type: readinessgate.ConditionType("web"), Status: corev1.ConditionFalse, Reason: readinessgate.ReasonRegistrationInProgress}
		if _, err := readinessgate.Patch(context.Background(), k8s, p, want); err != nil {
			t.Fatal(err)
		}
		r := startController(t, ns, withMutant(testOptions(CheckpointAnnotation), mutant))
		if mutant == "" {
			testwait.Until(t, 10*time.Second, "gate True", func() bool { return gateStatus(t, ns, ep.pod, "web") == corev1.ConditionTrue })
			return
		}
		testwait.Until(t, 10*time.Second, "an early exit", func() bool {
			return testutil.ToFloat64(r.c.metrics.Reconciles.WithLabelValues(metrics.ResultEarlyExit)) >= 1
		})
		stillOnceIdle(t, r, ns, "web", 0, "gate stuck False", func() bool { return gateStatus(t, ns, ep.pod, "web") == corev1.ConditionFalse })
	})
}

// TestMutantDeferDrift (#4889): with the checkpoint matching, an owned security group rule is
// revoked and a target removed out of band. The reference's drift check (Describe calls only)
// repairs both within a few intervals; the mutant waits for the deferral (an hour here).
func TestMutantDeferDrift(t *testing.T) {
	forEachVariant(t, MutantDeferDrift, func(t *testing.T, mutant string) {
		ns := newNamespace(t)
		arn, sgID, eps := networkedBackend(t, ns, 92)
		opts := withMutant(testOptions(CheckpointAnnotation), mutant)
		opts.DriftCheckInterval = 300 * time.Millisecond
		r := startController(t, ns, opts)
		rule := "tcp/80/10.1.0.0/16"
		testwait.Until(t, 10*time.Second, "rule", func() bool { return len(ownedRules(t, sgID)) == 1 })
		testwait.Until(t, 10*time.Second, "targets", func() bool { return sameSet(liveTargets(t, arn), targetKeys(eps)...) })
		testwait.Until(t, 10*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })

		// An early exit means the controller's cache holds the checkpoint and every earlier reconcile
		// has finished: a full reconcile that read the binding before the checkpoint was saved would
		// otherwise repair the drift made below, whatever the variant.
		r.waitReconciled(t, ns, []string{"web"}, metrics.ResultEarlyExit)

		// Without drift the checks only describe: no mutation, checkpoint kept. The reference's next
		// check is the sign to wait for; the mutant defers its checks, so it has none to show.
		cleanChecks := func() float64 { return testutil.ToFloat64(r.c.metrics.DriftChecks.WithLabelValues(metrics.DriftClean)) }
		since, checked := aws_.Recorder().Len(), cleanChecks()
		if mutant == "" {
			testwait.Until(t, 10*time.Second, "a clean drift check", func() bool { return cleanChecks() > checked })
		}
		for _, c := range callsFor(since, "") {
			if c.Operation != "DescribeTargetHealth" && c.Operation != "DescribeSecurityGroups" && c.Operation != "DescribeNetworkInterfaces" {
				if c.TargetGroupARN == arn || c.SecurityGroupID == sgID {
					t.Fatalf("clean drift check made %s", c.Operation)
				}
			}
		}

		if err := aws_.RevokeIngress(sgID, fakeaws.Rule{Protocol: "tcp", FromPort: 80, ToPort: 80, CIDR: "10.1.0.0/16"}); err != nil {
			t.Fatal(err)
		}
		if err := aws_.RemoveTarget(arn, fakeaws.Target{ID: eps[0].ip, Port: 8080}); err != nil {
			t.Fatal(err)
		}
		if len(ownedRules(t, sgID)) != 0 || len(liveTargets(t, arn)) != 1 {
			t.Fatal("out-of-band drift not applied")
		}
		if mutant == "" {
			testwait.Until(t, 10*time.Second, "rule "+rule+" restored", func() bool { return len(ownedRules(t, sgID)) == 1 })
			testwait.Until(t, 10*time.Second, "target restored", func() bool { return sameSet(liveTargets(t, arn), targetKeys(eps)...) })
			if testutil.ToFloat64(r.c.metrics.DriftChecks.WithLabelValues(metrics.DriftFound)) < 1 {
				t.Fatal("repair not counted as drift")
			}
			return
		}
		settled := r.reconciles.count(ns, "web")
		// The drift is made in AWS alone: no event reaches the controller, only its drift checks would
		// see it, and the mutant has none to run (its last reconcile asked for no requeue).
		stillOnceIdle(t, r, ns, "web", settled-1, "drift unrepaired", func() bool { return len(ownedRules(t, sgID)) == 0 && len(liveTargets(t, arn)) == 1 })
		if n := testutil.ToFloat64(r.c.metrics.DriftChecks.WithLabelValues(metrics.DriftClean)); n != 0 {
			t.Fatalf("mutant ran %v drift checks", n)
		}
		// Nothing changed in the cluster, so nothing should requeue the binding: a drift timer
		// nobody checks once requeued it every millisecond.
		if n := r.reconciles.count(ns, "web") - settled; n > 2 {
			t.Fatalf("mutant reconciled the unchanged binding %d times", n)
		}
	})
}

// networkedBackend: two pods whose ENIs share a security group, and a binding wanting tcp/80 from
// 10.1.0.0/16 on it.
func networkedBackend(t *testing.T, ns string, third int) (arn, sgID string, eps []epRef) {
	t.Helper()
	sg, err := aws_.CreateSecurityGroup("pods-"+ns, "pods", aws_.DefaultVPCID())
	if err != nil {
		t.Fatal(err)
	}
	arn = createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	eps = backend(t, ns, "web", third, 2)
	for i, e := range eps {
		if _, err := aws_.SeedENI(fakeaws.ENI{ID: eniID(i), PrivateIPs: []string{e.ip}, SecurityGroupIDs: []string{sg.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	tgb := mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP)
	tgb.Spec.Networking = ingress(80)
	create(t, tgb)
	return arn, sg.ID, eps
}

var eniSeq atomic.Int32

func eniID(int) string { return fmt.Sprintf("eni-d%016x", eniSeq.Add(1)) }

// readyReason is the reason of the binding's Ready condition ("" when absent).
func readyReason(t *testing.T, ns, name string) string {
	t.Helper()
	for _, c := range getTGB(t, ns, name).Status.Conditions {
		if c.Type == ConditionReady {
			return c.Reason
		}
	}
	return ""
}
