package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

// readOnly adds client.UnsafeDisableDeepCopy to a cached List whose result the caller only reads
// (names, labels, conditions): the items then share memory with the cache instead of being deep
// copies. Such results must never be modified or kept past the call.
func (c *Controller) readOnly(opts ...client.ListOption) []client.ListOption {
	if c.opts.legacyStartup {
		return opts
	}
	return append(opts, client.UnsafeDisableDeepCopy)
}

// readOnlyGet is readOnly for a cached Get: the object shares maps and slices with the cache.
func (c *Controller) readOnlyGet() []client.GetOption {
	if c.opts.legacyStartup {
		return nil
	}
	return []client.GetOption{client.UnsafeDisableDeepCopy}
}

// mapHandler turns events of one kind into TargetGroupBinding requests. mapFn returns the affected
// bindings; relevant filters updates (nil: every update).
type mapHandler struct {
	c        *Controller
	mapFn    func(ctx context.Context, obj client.Object) []types.NamespacedName
	relevant func(old, new client.Object) bool
}

var _ handler.EventHandler = mapHandler{}

func (h mapHandler) Create(ctx context.Context, e event.CreateEvent, q queue) {
	if e.IsInInitialList && !h.c.initialFanOutMatters() {
		h.c.initialSkipped.Add(1)
		return
	}
	h.c.enqueue(q, h.mapFn(ctx, e.Object), e.IsInInitialList)
}

// initialFanOutMatters reports whether mapping a secondary object's initial-list event to
// bindings can change the queue. Every binding is queued by its own initial-list event, and no
// worker runs before every source (and its handler) has synced, so at that point the binding is
// still queued and adding it again is a no-op — on a restart, and on a standby that becomes
// leader (its handlers get the informer's whole store replayed as initial-list events). Later
// additions, updates, deletes and resyncs (updates) are not initial-list events and always map.
// The exception is a priority queue whose secondary handlers enqueue at normal priority (upstream
// behaviour, LowPriorityInitialEvents off): there the fan-out raises bindings from the low
// priority of their own initial event, which is part of the behaviour the strategy models.
// (The queue's type cannot tell: controller-runtime wraps a plain workqueue in a type that
// satisfies the PriorityQueue interface and ignores priorities, so the option decides.)
func (c *Controller) initialFanOutMatters() bool {
	return c.opts.legacyStartup || (c.opts.PriorityQueue && !c.opts.LowPriorityInitialEvents)
}

func (h mapHandler) Update(ctx context.Context, e event.UpdateEvent, q queue) {
	if h.relevant != nil && !h.relevant(e.ObjectOld, e.ObjectNew) {
		return
	}
	keys := h.mapFn(ctx, e.ObjectNew)
	if !equalMaps(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) { // e.g. an EndpointSlice moved to another Service
		keys = append(keys, h.mapFn(ctx, e.ObjectOld)...)
	}
	// A resync (same resourceVersion) is treated like an initial-list event.
	h.c.enqueue(q, keys, e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion())
}

func (h mapHandler) Delete(ctx context.Context, e event.DeleteEvent, q queue) {
	h.c.enqueue(q, h.mapFn(ctx, e.Object), false)
}

func (h mapHandler) Generic(ctx context.Context, e event.GenericEvent, q queue) {
	h.c.enqueue(q, h.mapFn(ctx, e.Object), false)
}

// enqueue adds the keys; initial-list events go in at low priority when LowPriorityInitialEvents
// is on and the queue is a priority queue (upstream handlers always use normal priority).
func (c *Controller) enqueue(q queue, keys []types.NamespacedName, initial bool) {
	seen := map[types.NamespacedName]bool{}
	reqs := make([]reconcile.Request, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			reqs = append(reqs, reconcile.Request{NamespacedName: k})
		}
	}
	if len(reqs) == 0 {
		return
	}
	if initial && c.opts.LowPriorityInitialEvents {
		if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
			pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(handler.LowPriority)}, reqs...)
			return
		}
	}
	for _, r := range reqs {
		q.Add(r)
	}
}

// tgbsForService lists the bindings of a Service through the serviceRef index.
func (c *Controller) tgbsForService(ctx context.Context, namespace, name string) []types.NamespacedName {
	if name == "" {
		return nil
	}
	var list v1beta1.TargetGroupBindingList
	if err := c.client.List(ctx, &list, c.readOnly(client.InNamespace(namespace), client.MatchingFields{indexServiceName: name})...); err != nil {
		c.log.Error(err, "listing TargetGroupBindings by service", "namespace", namespace, "service", name)
		return nil
	}
	out := make([]types.NamespacedName, len(list.Items))
	for i := range list.Items {
		out[i] = client.ObjectKeyFromObject(&list.Items[i])
	}
	return out
}
