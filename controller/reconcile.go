package controller

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/awsclient"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/endpoints"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/controller/internal/networking"
	"github.com/restartsim/restartsim/controller/internal/readinessgate"
	"github.com/restartsim/restartsim/controller/internal/targets"
)

// Reconcile implements reconcile.Reconciler for TargetGroupBindings.
func (c *Controller) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	select { // the resume fast path owns the bindings until it has drained
	case <-c.resumeDone:
	case <-ctx.Done():
		return reconcile.Result{}, ctx.Err()
	}
	start := time.Now()
	log := c.log.WithValues("targetGroupBinding", req.NamespacedName)
	ctx = logr.NewContext(ctx, log)
	tgb := &v1beta1.TargetGroupBinding{}
	if err := c.client.Get(ctx, req.NamespacedName, tgb); err != nil {
		if apierrors.IsNotFound(err) {
			c.forget(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	var (
		result = metrics.ResultFull
		res    reconcile.Result
		err    error
	)
	if !tgb.DeletionTimestamp.IsZero() {
		err = c.finalize(ctx, tgb)
	} else {
		result, res, err = c.reconcile(ctx, cached, tgb)
	}
	if err != nil {
		result = metrics.ResultError
		if be := asBindingError(err); be != nil && ctx.Err() == nil && tgb.DeletionTimestamp.IsZero() {
			log.Info("binding points at something missing; retrying with backoff", "reason", be.Reason, "error", be.Err.Error())
			if rerr := c.recordBindingError(ctx, tgb, be); rerr != nil {
				log.Error(rerr, "recording binding error")
			}
		} else if ctx.Err() == nil {
			log.Error(err, "reconcile failed")
			c.recorder.Eventf(tgb, nil, corev1.EventTypeWarning, "FailedReconcile", "Reconcile", "%v", err)
		}
	}
	c.metrics.Reconciles.WithLabelValues(result).Inc()
	if result == metrics.ResultEarlyExit {
		c.metrics.EarlyExit.Observe(time.Since(start).Seconds())
	}
	if c.afterReconcile != nil {
		c.afterReconcile(req.NamespacedName, result, res.RequeueAfter)
	}
	return res, err
}

// reconcile is the live-object path: finalizer, endpoints, checkpoint early exit, full reconcile;
// r says where it reads.
func (c *Controller) reconcile(ctx context.Context, r reads, tgb *v1beta1.TargetGroupBinding) (string, reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(tgb, FinalizerName) {
		orig := tgb.DeepCopy()
		controllerutil.AddFinalizer(tgb, FinalizerName)
		if err := c.client.Patch(ctx, tgb, client.MergeFrom(orig)); err != nil {
			return "", reconcile.Result{}, fmt.Errorf("adding finalizer: %w", err)
		}
	}
	tg, err := c.targetGroup(ctx, tgb)
	if err != nil {
		return "", reconcile.Result{}, err
	}
	svcKey := types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Spec.ServiceRef.Name}
	var slices <-chan liveSlices
	if r.isLive() && tg.Type == v1beta1.TargetTypeIP {
		slices = c.listSlicesAsync(ctx, r, svcKey) // its round trip overlaps the Service's
	}
	svc := &corev1.Service{}
	if err := c.reader(r).Get(ctx, svcKey, svc); err != nil {
		if apierrors.IsNotFound(err) {
			return "", reconcile.Result{}, c.backendGone(ctx, r, tgb, tg)
		}
		return "", reconcile.Result{}, err
	}
	eps, err := c.resolve(ctx, r, tgb, tg, svc, slices)
	if err != nil {
		return "", reconcile.Result{}, err
	}
	cp, err := checkpoint.Compute(eps.HashIDs(), tgb.Spec)
	if err != nil {
		return "", reconcile.Result{}, err
	}
	if c.codec != nil && !eps.Incomplete {
		exit, res, err := c.earlyExit(ctx, tgb, tg, eps, cp)
		if err != nil {
			return "", reconcile.Result{}, err
		}
		if exit {
			if err := c.slowEarlyExit(ctx); err != nil {
				return "", reconcile.Result{}, err
			}
			return metrics.ResultEarlyExit, res, nil
		}
	}
	res, err := c.fullReconcile(ctx, r, tgb, tg, eps, cp)
	return metrics.ResultFull, res, err
}

// earlyExit decides the checkpoint skip and, if skipping, schedules the deferred full reconcile
// and the drift check. A due drift check that finds drift turns it into a full reconcile.
func (c *Controller) earlyExit(ctx context.Context, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo,
	eps endpoints.Result, cp checkpoint.Checkpoint) (bool, reconcile.Result, error) {
	if !c.codec.Matches(tgb.Annotations, cp) {
		return false, reconcile.Result{}, nil
	}
	if !c.mutant(MutantStaleGateRead) {
		gate := readinessgate.ConditionType(tgb.Name)
		for _, e := range eps.Endpoints {
			if e.Gated && readinessgate.PresentNotTrue(e.Pod, gate) {
				return false, reconcile.Result{}, nil
			}
		}
	}
	if drift, err := c.driftDue(ctx, tgb, tg, eps); err != nil || drift {
		return false, reconcile.Result{}, err
	}
	exit, res := c.deferFullReconcile(client.ObjectKeyFromObject(tgb))
	if exit {
		res.RequeueAfter = minRequeue(res.RequeueAfter, c.driftRequeue(tgb))
	}
	return exit, res, nil
}

// deferFullReconcile schedules the forced full reconcile of an early-exited binding (once per
// processed-set TTL); false means the compact strategy's timer is due and this is that reconcile.
func (c *Controller) deferFullReconcile(key types.NamespacedName) (bool, reconcile.Result) {
	switch c.opts.Checkpoint {
	case CheckpointCompact:
		armed, due, left := c.timers.Check(key)
		switch {
		case due:
			return false, reconcile.Result{} // the forced full reconcile
		case armed:
			return true, reconcile.Result{RequeueAfter: left}
		case c.processed.Has(key):
			return true, reconcile.Result{}
		}
		c.processed.Mark(key)
		return true, reconcile.Result{RequeueAfter: c.timers.Arm(key, c.schedule.Next(key))}
	case CheckpointAnnotation:
		if !c.processed.Has(key) {
			c.processed.Mark(key)
			c.queue.Add(key)
		}
	}
	return true, reconcile.Result{}
}

// targetGroupInfo is the target group a binding points at.
type targetGroupInfo struct {
	ARN   string
	Type  v1beta1.TargetType
	VpcID string
}

// targetGroup reads ARN, target type and VPC from the spec, asking ELBv2 only for what is missing.
func (c *Controller) targetGroup(ctx context.Context, tgb *v1beta1.TargetGroupBinding) (targetGroupInfo, error) {
	info := targetGroupInfo{ARN: tgb.Spec.TargetGroupARN, VpcID: tgb.Spec.VpcID}
	if tgb.Spec.TargetType != nil {
		info.Type = *tgb.Spec.TargetType
	}
	if info.ARN == "" || info.Type == "" {
		tg, err := c.elb.DescribeTargetGroup(ctx, tgb.Spec.TargetGroupARN, tgb.Spec.TargetGroupName)
		if err != nil {
			return info, err
		}
		info.ARN = tg.ARN
		if info.Type == "" {
			info.Type = v1beta1.TargetType(tg.TargetType)
		}
		if info.VpcID == "" {
			info.VpcID = tg.VpcID
		}
	}
	if info.VpcID == "" {
		info.VpcID = c.opts.VpcID
	}
	if info.Type != v1beta1.TargetTypeIP && info.Type != v1beta1.TargetTypeInstance {
		return info, reconcile.TerminalError(fmt.Errorf("target group %s has unsupported target type %q", info.ARN, info.Type))
	}
	return info, nil
}

// backendGone cleans up after the backend Service disappeared: deregister every target, drop the
// binding's rules (none revoked on the fast path, r live), and reset the checkpoint so the
// Service's return is a full reconcile (#4343).
func (c *Controller) backendGone(ctx context.Context, r reads, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo) error {
	if err := c.deregisterAll(ctx, tgb, tg); err != nil {
		return err
	}
	if err := c.network.Remove(ctx, networking.Request{TGB: client.ObjectKeyFromObject(tgb).String(), AddOnly: r.isLive()}); err != nil {
		return err
	}
	if !c.mutant(MutantSkipAfterCleanup) {
		if err := c.resetCheckpoint(ctx, tgb, resetServiceNotFound); err != nil {
			return err
		}
	}
	return &BindingError{Reason: ReasonServiceNotFound,
		Err: fmt.Errorf("service %s/%s not found: targets deregistered", tgb.Namespace, tgb.Spec.ServiceRef.Name)}
}

// finalize deregisters every target, drops the binding's rules and removes the finalizer.
func (c *Controller) finalize(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error {
	if !controllerutil.ContainsFinalizer(tgb, FinalizerName) {
		return nil
	}
	if err := c.deregisterBinding(ctx, tgb); err != nil {
		return err
	}
	if err := c.network.Remove(ctx, networking.Request{TGB: client.ObjectKeyFromObject(tgb).String()}); err != nil {
		return err
	}
	orig := tgb.DeepCopy()
	controllerutil.RemoveFinalizer(tgb, FinalizerName)
	if err := c.client.Patch(ctx, tgb, client.MergeFrom(orig)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing finalizer: %w", err)
	}
	c.forget(client.ObjectKeyFromObject(tgb))
	return nil
}

// deregisterBinding deregisters every target of tgb's target group; a missing group is not an error.
func (c *Controller) deregisterBinding(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error {
	tg, err := c.targetGroup(ctx, tgb)
	if awsclient.IsTargetGroupNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.deregisterAll(ctx, tgb, tg)
}

// deregisterAll deregisters every registered (non-draining) target; a missing group is not an error.
func (c *Controller) deregisterAll(ctx context.Context, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo) error {
	current, err := c.elb.ListTargets(ctx, tg.ARN)
	if awsclient.IsTargetGroupNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	_, remove := targets.Diff(nil, current)
	if tgb.Spec.MultiClusterTargetGroup {
		remove = c.ownedTargets(tg.ARN, remove)
	}
	if len(remove) == 0 {
		return nil
	}
	if err := c.elb.DeregisterTargets(ctx, tg.ARN, remove); err != nil && !awsclient.IsTargetGroupNotFound(err) {
		return err
	}
	c.forgetRegistered(tg.ARN, remove)
	c.recorder.Eventf(tgb, nil, corev1.EventTypeNormal, "SuccessfullyDeregistered", "Deregister", "deregistered %d targets", len(remove))
	return nil
}

// forget drops the in-memory state of a binding that is gone.
func (c *Controller) forget(key types.NamespacedName) {
	c.schedule.Forget(key)
	if c.driftSchedule != nil {
		c.driftSchedule.Forget(key)
	}
	if c.timers != nil {
		c.timers.Disarm(key, false)
	}
	if c.driftTimers != nil {
		c.driftTimers.Disarm(key, false)
	}
}
