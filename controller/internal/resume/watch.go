package resume

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// watchAll opens the watches of every kind from the watermark rv, feeding q; it returns once they
// are open, with the group that ends when they have.
func (f *FastPath) watchAll(ctx context.Context, rv string, q workqueue.TypedDelayingInterface[types.NamespacedName]) *sync.WaitGroup {
	var opened sync.WaitGroup
	watches := &sync.WaitGroup{}
	for _, list := range []func() client.ObjectList{
		func() client.ObjectList { return &v1beta1.TargetGroupBindingList{} },
		func() client.ObjectList { return &corev1.ServiceList{} },
		func() client.ObjectList { return &discoveryv1.EndpointSliceList{} },
		func() client.ObjectList { return &corev1.PodList{} },
		func() client.ObjectList { return &corev1.NodeList{} },
	} {
		opened.Add(1)
		watches.Go(func() { f.watchKind(ctx, list, rv, q, opened.Done) })
	}
	opened.Wait()
	return watches
}

// watchKind watches one kind from the watermark rv, calls opened once its watches are open, and
// feeds the bindings their events map to into q until ctx ends or the watches fail. A controller
// limited to several namespaces watches all namespaces and drops the others' events: one watch
// the API server replays from its history instead of one per namespace, which at restart
// competed with the first reconcile. Should RBAC allow no cluster-wide watch, it watches each
// namespace.
func (f *FastPath) watchKind(ctx context.Context, newList func() client.ObjectList, rv string, q workqueue.TypedDelayingInterface[types.NamespacedName], opened func()) {
	namespaces := f.cfg.Namespaces
	if _, clusterScoped := newList().(*corev1.NodeList); clusterScoped {
		namespaces = nil
	}
	if len(namespaces) != 1 {
		w, err := f.open(ctx, newList(), metav1.NamespaceAll, rv)
		if len(namespaces) == 0 || !apierrors.IsForbidden(err) {
			opened()
			f.consume(ctx, w, err, newList(), metav1.NamespaceAll, q)
			return
		}
	}
	type opening struct {
		w   watch.Interface
		err error
	}
	all := make([]opening, len(namespaces))
	var wg sync.WaitGroup
	for i, ns := range namespaces {
		wg.Go(func() { all[i].w, all[i].err = f.open(ctx, newList(), ns, rv) })
	}
	wg.Wait()
	opened()
	for i, ns := range namespaces {
		wg.Go(func() { f.consume(ctx, all[i].w, all[i].err, newList(), ns, q) })
	}
	wg.Wait()
}

// open starts a watch of list's kind in namespace (all namespaces if empty) from rv.
func (f *FastPath) open(ctx context.Context, list client.ObjectList, namespace, rv string) (watch.Interface, error) {
	return f.cfg.Watcher.Watch(ctx, list, &client.ListOptions{Namespace: namespace,
		Raw: &metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true}})
}

// consume feeds the bindings that a watch's events map to into q, until ctx ends or the watch
// fails; err is the watch's opening error.
func (f *FastPath) consume(ctx context.Context, w watch.Interface, err error, list client.ObjectList, namespace string, q workqueue.TypedDelayingInterface[types.NamespacedName]) {
	log := f.cfg.Log.WithName("resume").WithValues("list", fmt.Sprintf("%T", list), "namespace", namespace)
	if err != nil {
		if ctx.Err() == nil {
			log.Error(err, "watching from the watermark")
		}
		return
	}
	defer w.Stop()
	for {
		var ev watch.Event
		var open bool
		select {
		case <-ctx.Done():
			return
		case ev, open = <-w.ResultChan():
		}
		switch {
		case !open:
			return
		case ev.Type == watch.Error:
			// Typically 410 Gone: the watermark is older than the API server's watch history.
			log.Info("watch from the watermark ended; the rest waits for the caches", "status", apierrors.FromObject(ev.Object).Error())
			return
		case ev.Type == watch.Bookmark:
			continue
		}
		obj, ok := ev.Object.(client.Object)
		if !ok || !f.watched(obj.GetNamespace()) {
			continue
		}
		// Mapping may read the API server (a Service's bindings, a node at the watermark): it
		// counts as work in flight, so the replay is not taken for done meanwhile.
		f.inflight.Add(1)
		keys := f.bindingsOf(ctx, ev.Type, obj)
		f.inflight.Add(-1)
		for _, key := range keys {
			f.lastEvent.Store(time.Now().UnixNano())
			f.firstEvent.CompareAndSwap(0, time.Now().UnixNano())
			if !f.take(key) {
				log.Info("more changed bindings than the fast path takes; the rest waits for the caches", "max", maxFastPathBindings)
				return
			}
			q.Add(key)
		}
	}
}

// watched reports whether the controller watches namespace (a cluster-wide watch sees them all;
// "" is a cluster-scoped object's).
func (f *FastPath) watched(namespace string) bool {
	return len(f.cfg.Namespaces) == 0 || namespace == "" || slices.Contains(f.cfg.Namespaces, namespace)
}

// take admits key unless maxFastPathBindings distinct bindings were taken already.
func (f *FastPath) take(key types.NamespacedName) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.taken[key] {
		return true
	}
	if len(f.taken) >= maxFastPathBindings {
		return false
	}
	f.taken[key] = true
	return true
}
