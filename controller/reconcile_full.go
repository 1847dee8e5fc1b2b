package controller

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/endpoints"
	"github.com/restartsim/restartsim/controller/internal/networking"
	"github.com/restartsim/restartsim/controller/internal/readinessgate"
	"github.com/restartsim/restartsim/controller/internal/targets"
)

// ConditionReady is the TargetGroupBinding status condition the controller maintains.
const ConditionReady = "Ready"

// fullReconcile makes AWS match the endpoints: target health, networking, deregister, register,
// readiness gates; the checkpoint is reset before any mutation and saved only at the end.
func (c *Controller) fullReconcile(ctx context.Context, r reads, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo,
	eps endpoints.Result, cp checkpoint.Checkpoint) (reconcile.Result, error) {
	var reset chan error
	if r.isLive() && c.opts.Mutant == "" && c.codec != nil && !c.codec.Matches(tgb.Annotations, cp) {
		// On the fast path the reset of a checkpoint that no longer matches overlaps the look at
		// AWS: such a binding changed while the controller was down, so its targets are about to
		// change too. Should they not, the checkpoint is saved again below.
		reset = make(chan error, 1)
		go func() { reset <- c.resetCheckpoint(ctx, tgb, resetResumeMismatch) }()
	}
	current, err := c.elb.ListTargets(ctx, tg.ARN)
	if reset != nil {
		err = errors.Join(err, <-reset)
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	add, remove := targets.Diff(eps.Targets(), current)
	if tgb.Spec.MultiClusterTargetGroup {
		remove = c.ownedTargets(tg.ARN, remove)
	}
	if err := c.reconcileNetworking(ctx, r, tgb, tg, eps); err != nil {
		_ = c.resetCheckpoint(ctx, tgb, resetNetworkingError)
		return reconcile.Result{}, fmt.Errorf("networking: %w", err)
	}
	if len(add) > 0 || len(remove) > 0 {
		switch {
		case c.mutant(MutantSaveBeforeRegister):
			if err := c.saveCheckpoint(ctx, tgb, cp); err != nil {
				return reconcile.Result{}, err
			}
		case c.mutant(MutantNoClearOnRegister): // seed commit 2: no clear on register/deregister
		default:
			if err := c.resetCheckpoint(ctx, tgb, resetTargetsChanged); err != nil {
				return reconcile.Result{}, err
			}
		}
	}
	if err := c.changeTargets(ctx, tgb, tg, add, remove); err != nil {
		return reconcile.Result{}, err
	}
	pending, err := c.updateReadinessGates(ctx, r, tgb, eps, current, add)
	if err != nil {
		return reconcile.Result{}, err
	}
	if c.mutant(MutantNoClearOnRegister) {
		pending = false // seed commit 2: saved as if done; nothing re-runs until the gate flips
	}
	if pending || eps.Incomplete {
		reason := resetGatePending
		if !pending {
			reason = resetEndpointsIncomplete
		}
		if err := c.resetCheckpoint(ctx, tgb, reason); err != nil {
			return reconcile.Result{}, err
		}
		c.elb.InvalidateTargets(tg.ARN) // the next look at health must be fresh
		return reconcile.Result{RequeueAfter: c.opts.RequeueDuration}, c.setStatus(ctx, tgb, false, "TargetsNotReady", reason, false)
	}
	if err := c.saveCheckpoint(ctx, tgb, cp); err != nil {
		return reconcile.Result{}, err
	}
	key := client.ObjectKeyFromObject(tgb)
	c.processed.Mark(key)
	if c.timers != nil {
		c.timers.Disarm(key, false)
	}
	res := reconcile.Result{RequeueAfter: c.armDrift(tgb)}
	return res, c.setStatus(ctx, tgb, true, "Reconciled", fmt.Sprintf("%d targets", len(eps.Endpoints)), true)
}

// changeTargets deregisters remove and registers add (after the checkpoint reset).
func (c *Controller) changeTargets(ctx context.Context, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo, add, remove []targets.Target) error {
	if len(remove) > 0 {
		if err := c.elb.DeregisterTargets(ctx, tg.ARN, remove); err != nil {
			return err
		}
		c.forgetRegistered(tg.ARN, remove)
		c.recorder.Eventf(tgb, nil, corev1.EventTypeNormal, "SuccessfullyDeregistered", "Deregister", "deregistered %d targets", len(remove))
	}
	if len(add) > 0 {
		if err := c.assignAvailabilityZones(ctx, tg, add); err != nil {
			return err
		}
		if err := c.elb.RegisterTargets(ctx, tg.ARN, add); err != nil {
			return err
		}
		c.rememberRegistered(tg.ARN, add)
		c.recorder.Eventf(tgb, nil, corev1.EventTypeNormal, "SuccessfullyRegistered", "Register", "registered %d targets", len(add))
		if c.afterRegister != nil {
			return c.afterRegister(ctx, tgb)
		}
	}
	return nil
}

// reconcileNetworking hands the binding's rules and target security groups to the aggregator;
// on the fast path (r live) it may only add rules.
func (c *Controller) reconcileNetworking(ctx context.Context, r reads, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo, eps endpoints.Result) error {
	req := c.networkingRequest(tgb, tg, eps)
	req.AddOnly = r.isLive()
	req.BeforeMutate = func(ctx context.Context) error {
		return c.resetCheckpoint(ctx, tgb, resetNetworking)
	}
	return c.network.Reconcile(ctx, req)
}

// networkingRequest is the binding's networking wish: its rules on its targets' security groups.
func (c *Controller) networkingRequest(tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo, eps endpoints.Result) networking.Request {
	var ports []int32
	var ids []string
	seenPort := map[int32]bool{}
	for _, e := range eps.Endpoints {
		ids = append(ids, e.Target.ID)
		if !seenPort[e.Target.Port] {
			seenPort[e.Target.Port] = true
			ports = append(ports, e.Target.Port)
		}
	}
	req := networking.Request{
		TGB:   client.ObjectKeyFromObject(tgb).String(),
		Rules: networking.DesiredRules(tgb.Spec.Networking, ports),
	}
	if tg.Type == v1beta1.TargetTypeInstance {
		req.InstanceIDs = ids
	} else {
		req.IPs = ids
	}
	return req
}

// updateReadinessGates sets each gated pod's condition from its target's health and reports
// whether a gated target is not healthy yet. Targets registered just now have no health yet.
func (c *Controller) updateReadinessGates(ctx context.Context, r reads, tgb *v1beta1.TargetGroupBinding, eps endpoints.Result,
	current []targets.Health, added []targets.Target) (bool, error) {
	gate := readinessgate.ConditionType(tgb.Name)
	health := targets.Index(current)
	justAdded := map[string]bool{}
	for _, t := range added {
		justAdded[t.Key()] = true
	}
	pending := false
	for _, e := range eps.Endpoints {
		if !e.Gated {
			continue
		}
		var h *targets.Health
		if hh, ok := health[e.Target.Key()]; ok && !justAdded[e.Target.Key()] {
			h = &hh
		}
		want := readinessgate.Desired(gate, h)
		if want.Status != corev1.ConditionTrue {
			pending = true
		}
		if err := c.patchGate(ctx, r, e.Pod, want); err != nil {
			return false, err
		}
	}
	for _, pod := range eps.Excluded {
		if cond, ok := readinessgate.Condition(pod, gate); ok && cond.Status == corev1.ConditionTrue {
			want := corev1.PodCondition{Type: gate, Status: corev1.ConditionFalse, Reason: readinessgate.ReasonDeregistered,
				Message: "target deregistered while the pod is not ready"}
			if err := c.patchGate(ctx, r, pod, want); err != nil {
				return false, err
			}
		}
	}
	return pending, nil
}

// patchGate sets a readiness gate condition on (a copy of) pod. On the resume fast path (r live)
// it tells the fast path the pod's new resource version, so that its pod watch skips the event of
// its own write.
func (c *Controller) patchGate(ctx context.Context, r reads, pod *corev1.Pod, want corev1.PodCondition) error {
	pod = pod.DeepCopy()
	sent, err := readinessgate.Patch(ctx, c.client, pod, want)
	if err != nil {
		return fmt.Errorf("patching readiness gate of pod %s: %w", pod.Name, err)
	}
	if sent && r.isLive() {
		r.live.GateWritten(client.ObjectKeyFromObject(pod), pod.ResourceVersion)
	}
	return nil
}

// assignAvailabilityZones marks IP targets outside the VPC's CIDRs with availability zone "all".
func (c *Controller) assignAvailabilityZones(ctx context.Context, tg targetGroupInfo, ts []targets.Target) error {
	if tg.Type != v1beta1.TargetTypeIP || tg.VpcID == "" {
		return nil
	}
	cidrs, err := c.ec2.VPCCIDRs(ctx, tg.VpcID)
	if err != nil {
		return err
	}
	var prefixes []netip.Prefix
	for _, s := range cidrs {
		if p, err := netip.ParsePrefix(s); err == nil {
			prefixes = append(prefixes, p)
		}
	}
	for i := range ts {
		addr, err := netip.ParseAddr(ts[i].ID)
		if err != nil {
			continue
		}
		inside := false
		for _, p := range prefixes {
			if p.Contains(addr) {
				inside = true
				break
			}
		}
		if !inside && len(prefixes) > 0 {
			ts[i].AvailabilityZone = "all"
		}
	}
	return nil
}

// setStatus patches the Ready condition (and observedGeneration after a successful reconcile)
// when they changed.
func (c *Controller) setStatus(ctx context.Context, tgb *v1beta1.TargetGroupBinding, ready bool, reason, msg string, observed bool) error {
	orig := tgb.DeepCopy()
	if observed {
		tgb.Status.ObservedGeneration = &tgb.Generation
	}
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&tgb.Status.Conditions, metav1.Condition{
		Type: ConditionReady, Status: status, Reason: reason, Message: msg, ObservedGeneration: tgb.Generation,
	})
	if equality.Semantic.DeepEqual(orig.Status, tgb.Status) {
		return nil
	}
	if err := c.client.Status().Patch(ctx, tgb, client.MergeFrom(orig)); err != nil {
		return client.IgnoreNotFound(err)
	}
	return nil
}

// rememberRegistered, forgetRegistered and ownedTargets track the targets this instance registered,
// so that multi-cluster target groups only lose targets this cluster added.
func (c *Controller) rememberRegistered(arn string, ts []targets.Target) {
	c.registeredMu.Lock()
	defer c.registeredMu.Unlock()
	if c.registered[arn] == nil {
		c.registered[arn] = map[string]targets.Target{}
	}
	for _, t := range ts {
		c.registered[arn][t.Key()] = t
	}
}

func (c *Controller) forgetRegistered(arn string, ts []targets.Target) {
	c.registeredMu.Lock()
	defer c.registeredMu.Unlock()
	for _, t := range ts {
		delete(c.registered[arn], t.Key())
	}
}

func (c *Controller) ownedTargets(arn string, ts []targets.Target) []targets.Target {
	c.registeredMu.Lock()
	defer c.registeredMu.Unlock()
	var out []targets.Target
	for _, t := range ts {
		if _, ok := c.registered[arn][t.Key()]; ok {
			out = append(out, t)
		}
	}
	return out
}
