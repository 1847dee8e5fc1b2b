package controller

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/controller/internal/resume"
)

// reads is where a reconcile reads: the cache (the zero value, the normal path) or, on the resume
// fast path, the API server as live says.
type reads struct{ live *resume.Reads }

// cached are the normal path's reads.
var cached = reads{}

func (r reads) isLive() bool { return r.live != nil }

// reader is where r reads objects.
func (c *Controller) reader(r reads) client.Reader {
	if r.isLive() {
		return c.apiReader
	}
	return c.client
}

// sliceOptions and nodeOptions are what r adds to its lists of EndpointSlices and Nodes (nothing
// from the cache).
func (r reads) sliceOptions() []client.ListOption {
	if r.live == nil {
		return nil
	}
	return r.live.SliceOptions
}

func (r reads) nodeOptions() []client.ListOption {
	if r.live == nil {
		return nil
	}
	return r.live.NodeOptions
}

// fastPathReconciler is the controller as the resume fast path sees it.
type fastPathReconciler struct{ c *Controller }

var _ resume.Reconciler = fastPathReconciler{}

// ReconcileLive is one fast-path reconcile with live reads; it returns the requeue delay asked
// for. Anything it skips or fails is left to the normal path, which reconciles every binding
// once its caches have synced.
func (f fastPathReconciler) ReconcileLive(ctx context.Context, tgb *v1beta1.TargetGroupBinding, live *resume.Reads) time.Duration {
	c, key := f.c, client.ObjectKeyFromObject(tgb)
	if !tgb.DeletionTimestamp.IsZero() {
		// Of finalize, only the deregistration: dropping the binding's security group rules needs
		// every binding's rules, from the synced cache, so they and the finalizer are left to the
		// normal path (whose finalize then finds nothing left to deregister).
		err := c.deregisterBinding(ctx, tgb)
		result := metrics.ResultFull
		if err != nil {
			result = metrics.ResultError
			if ctx.Err() == nil {
				c.log.V(1).Info("resume: deregistering a deleted binding failed; left to the normal path", "targetGroupBinding", key, "error", err.Error())
			}
		}
		c.metrics.ResumeReconciles.WithLabelValues(result).Inc()
		return 0
	}
	result, res, err := c.reconcile(ctx, reads{live: live}, tgb)
	if err != nil {
		result = metrics.ResultError
		if ctx.Err() == nil {
			c.log.V(1).Info("resume: reconcile failed; left to the normal path", "targetGroupBinding", key, "error", err.Error())
		}
	}
	c.metrics.ResumeReconciles.WithLabelValues(result).Inc()
	if err != nil {
		return 0
	}
	return res.RequeueAfter
}
