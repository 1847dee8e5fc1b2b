package controller

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/endpoints"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/controller/internal/targets"
)

// driftDue runs the drift check of a binding whose checkpoint matches when its timer is due, and
// arms the timer when it is not armed (the first early exit after a start, so a restart does not
// check every binding at once). It reports whether AWS drifted from the binding's wanted state,
// which turns the reconcile into a full one. MutantDeferDrift skips it: drift then waits for the
// deferred full reconcile, as upstream (#4889).
func (c *Controller) driftDue(ctx context.Context, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo, eps endpoints.Result) (bool, error) {
	if !c.checksDrift() {
		return false, nil
	}
	key := client.ObjectKeyFromObject(tgb)
	armed, due, _ := c.driftTimers.Check(key) // a due timer is disarmed here
	if !armed {
		c.driftTimers.Arm(key, c.driftSchedule.Next(key))
		return false, nil
	}
	if !due {
		return false, nil
	}
	drift, err := c.detectDrift(ctx, tgb, tg, eps)
	switch {
	case err != nil:
		c.metrics.DriftChecks.WithLabelValues(metrics.DriftError).Inc()
		c.driftTimers.Arm(key, 0) // check again on the retry
		return false, err
	case drift:
		c.metrics.DriftChecks.WithLabelValues(metrics.DriftFound).Inc()
		return true, nil // the full reconcile re-arms after success
	}
	c.metrics.DriftChecks.WithLabelValues(metrics.DriftClean).Inc()
	c.driftTimers.Arm(key, c.driftSchedule.Next(key))
	return false, nil
}

// detectDrift compares AWS with what the binding wants, with Describe calls only: the target
// group's targets (DescribeTargetHealth) and, with networking rules, the owned ingress rules of
// the targets' security groups (DescribeSecurityGroups, shared by bindings of one group). Data
// younger than half the interval is reused.
func (c *Controller) detectDrift(ctx context.Context, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo, eps endpoints.Result) (bool, error) {
	log := logr.FromContextOrDiscard(ctx)
	maxAge := c.opts.DriftCheckInterval / 2
	current, err := c.elb.ListTargetsFresh(ctx, tg.ARN, maxAge)
	if err != nil {
		return false, err
	}
	add, remove := targets.Diff(eps.Targets(), current)
	if tgb.Spec.MultiClusterTargetGroup {
		remove = c.ownedTargets(tg.ARN, remove)
	}
	if len(add) > 0 || len(remove) > 0 {
		log.Info("target drift: repairing now", "missing", len(add), "extra", len(remove))
		return true, nil
	}
	if tgb.Spec.Networking == nil || len(tgb.Spec.Networking.Ingress) == 0 {
		return false, nil
	}
	sgs, err := c.network.Missing(ctx, c.networkingRequest(tgb, tg, eps), maxAge)
	if err != nil {
		return false, err
	}
	if len(sgs) > 0 {
		log.Info("security group drift: repairing now", "securityGroups", sgs)
		return true, nil
	}
	return false, nil
}

// checksDrift reports whether drift checks run. MutantDeferDrift arms no timer either: a timer
// nobody checks would stay due and requeue its binding every millisecond.
func (c *Controller) checksDrift() bool {
	return c.driftTimers != nil && !c.mutant(MutantDeferDrift)
}

// armDrift restarts a binding's drift timer after a successful full reconcile and returns the
// requeue that runs the check (0 when drift checks are off or checkpointing is off).
func (c *Controller) armDrift(tgb *v1beta1.TargetGroupBinding) time.Duration {
	if !c.checksDrift() || c.codec == nil {
		return 0
	}
	key := client.ObjectKeyFromObject(tgb)
	c.driftTimers.Disarm(key, false)
	return c.driftTimers.Arm(key, c.driftSchedule.Next(key))
}

// driftRequeue is the time until the binding's drift check is due (0: none armed).
func (c *Controller) driftRequeue(tgb *v1beta1.TargetGroupBinding) time.Duration {
	if !c.checksDrift() {
		return 0
	}
	left, armed := c.driftTimers.Left(client.ObjectKeyFromObject(tgb))
	if !armed {
		return 0
	}
	return max(left, time.Millisecond)
}

// minRequeue is the earlier of two RequeueAfter values, where 0 means none.
func minRequeue(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}
