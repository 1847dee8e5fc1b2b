package controller

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/controller/internal/metrics"
)

// timedReconciler times every reconcile of inner on this instance's own registry, as
// controller-runtime does on the process's: replicas in one process (the simulation's) share
// controller-runtime's metrics, so only these tell one instance's work from another's.
type timedReconciler struct {
	name  string
	m     *metrics.Metrics
	inner reconcile.Reconciler
}

func (t timedReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	active := t.m.ActiveWorkers.WithLabelValues(t.name)
	active.Inc()
	defer active.Dec()
	start := time.Now()
	// Observed before the worker counts as idle, so an idle instance's count is complete.
	defer func() { t.m.ReconcileTime.WithLabelValues(t.name).Observe(time.Since(start).Seconds()) }()
	return t.inner.Reconcile(ctx, req)
}

// reportWorkQueue makes the queue o.NewQueue builds (controller-runtime's default when unset)
// report its depth on this instance's registry.
func (c *Controller) reportWorkQueue(o *crcontroller.Options) {
	newQueue := o.NewQueue
	if newQueue == nil {
		newQueue = defaultQueue(ptr.Deref(o.UsePriorityQueue, true), c)
	}
	o.NewQueue = func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		q := newQueue(name, rl)
		c.metrics.SetWorkQueue(name, q.Len)
		return q
	}
}

// defaultQueue builds the queue controller-runtime builds when NewQueue is unset.
func defaultQueue(usePriorityQueue bool, c *Controller) func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		if usePriorityQueue {
			return priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) {
				o.Log = c.log.WithValues("controller", name)
				o.RateLimiter = rl
			})
		}
		return workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name})
	}
}
