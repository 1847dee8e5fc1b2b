package controller

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/metrics"
)

// liveReadsKey marks a context whose reconcile reads from the API server, not the cache; its
// value, a liveLists, holds the options of the reconcile's live lists.
type liveReadsKey struct{}

// liveLists are the options a fast-path reconcile adds to its live lists of EndpointSlices and Nodes.
type liveLists struct{ slices, nodes []client.ListOption }

func liveReads(ctx context.Context) bool { return ctx.Value(liveReadsKey{}) != nil }

// liveListOptions are the options of the context's live lists.
func liveListOptions(ctx context.Context) liveLists {
	opts, _ := ctx.Value(liveReadsKey{}).(liveLists)
	return opts
}

// reader is where a reconcile reads: the cache, or the API server on the resume fast path.
func (c *Controller) reader(ctx context.Context) client.Reader {
	if liveReads(ctx) {
		return c.apiReader
	}
	return c.client
}

// fastPath is the resume fast path (see resume.go): from the manager's start until its caches
// have synced, it watches bindings, Services, EndpointSlices, gated Pods and Nodes from the
// watermark and reconciles the bindings they map to with live reads. The controller's workers
// wait until it has drained (Controller.resumeDone), so a binding is never reconciled by both at
// once.
//
// It covers IP and instance bindings; security group rules are only added on it, never revoked,
// since that needs every binding's rules (networking.Manager, from the synced cache). Of a
// binding being deleted it deregisters the targets; its rules and finalizer wait. Pod changes
// reach it through the EndpointSlices they change and, for a pod with readiness gates, through
// its own events too: its containers becoming ready changes its targets but not its slice (the
// pod is not Ready until the gate is). A node change reaches every instance binding, but only
// if it changed what the node handler watches (nodeChanged): a kubelet's periodic status report
// would otherwise reconcile them all. Changes it does not cover wait for the normal path, as
// without the fast path.
type fastPath struct {
	c       *Controller
	cache   cache.Cache // the manager's: the fast path ends when it has synced
	held    *heldCache  // the same cache when ManagerOptions holds its start (nil otherwise)
	watcher client.WithWatch

	lastEvent atomic.Int64 // unix nanos of the last event taken
	inflight  atomic.Int32 // reconciles and event mappings under way
	// Unix nanos of the first event taken and the first reconcile done: logged with the replay,
	// they say where a restart's first change spent its time.
	firstEvent, firstDone atomic.Int64

	mu       sync.Mutex
	bindings map[types.NamespacedName][]types.NamespacedName // Service → its bindings, read once
	taken    map[types.NamespacedName]bool
	// listed holds the bindings a Service's list returned, for their next reconcile to use
	// instead of reading them again; an event of the binding itself drops its entry.
	listed map[types.NamespacedName]*v1beta1.TargetGroupBinding
	// watermark is the resource version the watches started from; sliceRV is, per Service, that
	// of the newest EndpointSlice event taken (sliceListOptions).
	watermark string
	sliceRV   map[types.NamespacedName]string
	// pods holds the last event's object of each gated pod, so that its next event is taken only
	// if it changed what the pod handler watches (gatedPodChanged): not, say, the Ready
	// condition the kubelet sets after a gate flip.
	pods map[types.NamespacedName]*corev1.Pod
	// nodes holds each node's last event object (nil after a deletion) to compare its next event
	// with, the first with its state at the watermark; nodeRV is the newest node event's resource
	// version (nodeListOptions); instance are the instance bindings, listed once.
	nodes    map[string]*corev1.Node
	nodeRV   string
	instance []types.NamespacedName
}

// GetCache puts the fast path into the manager's cache group, which starts with the informers;
// every other runnable starts only after they have synced. The returned cache reports itself
// synced, so the fast path does not hold up the manager's start.
func (f *fastPath) GetCache() cache.Cache { return alreadySynced{f.cache} }

type alreadySynced struct{ cache.Cache }

func (alreadySynced) WaitForCacheSync(context.Context) bool { return true }

// Start runs the fast path; it returns once the caches have synced and its queue has drained.
func (f *fastPath) Start(ctx context.Context) error {
	defer close(f.c.resumeDone)
	defer f.releaseCache()
	log := f.c.log.WithName("resume")
	started := time.Now()
	w, ok, err := ReadWatermark(ctx, f.c.apiReader, f.c.opts.ResumeNamespace, f.c.opts.LeaderElectionID)
	switch {
	case err != nil:
		log.Error(err, "reading the resume watermark; waiting for the caches")
		return nil
	case !ok:
		log.Info("no resume watermark; waiting for the caches")
		return nil
	case f.c.opts.Clock.Since(w.RecordedAt) > maxWatermarkAge*f.c.opts.ResumeInterval:
		// After a long downtime most of the fleet may have changed: a replay would be a slower
		// full reconcile, with live reads.
		log.Info("resume watermark too old; waiting for the caches", "recordedAt", w.RecordedAt)
		return nil
	}
	log.Info("resuming from the watermark", "resourceVersion", w.ResourceVersion, "recordedAt", w.RecordedAt,
		"read", time.Since(started).Round(time.Microsecond))
	f.watermark = w.ResourceVersion
	watchCtx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	q := workqueue.NewTypedDelayingQueue[types.NamespacedName]()
	var workers, watches sync.WaitGroup
	for range max(f.c.opts.MaxConcurrentReconciles, fastPathWorkers) {
		workers.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				f.inflight.Add(1)
				// A gated target not healthy yet asks for a requeue: honoured while the fast
				// path runs, so its gate need not wait for the caches.
				if after := f.reconcile(ctx, key); after > 0 {
					q.AddAfter(key, after)
				}
				f.firstDone.CompareAndSwap(0, time.Now().UnixNano())
				f.inflight.Add(-1)
				q.Done(key)
			}
		})
	}
	var opened sync.WaitGroup
	for _, list := range []func() client.ObjectList{
		func() client.ObjectList { return &v1beta1.TargetGroupBindingList{} },
		func() client.ObjectList { return &corev1.ServiceList{} },
		func() client.ObjectList { return &discoveryv1.EndpointSliceList{} },
		func() client.ObjectList { return &corev1.PodList{} },
		func() client.ObjectList { return &corev1.NodeList{} },
	} {
		opened.Add(1)
		watches.Go(func() { f.watchKind(watchCtx, list, w.ResourceVersion, q, opened.Done) })
	}
	opened.Wait()
	log.V(1).Info("watching from the watermark", "sinceStart", time.Since(started).Round(time.Microsecond))
	f.replayThenRelease(ctx, q, started)
	f.cache.WaitForCacheSync(ctx)
	stopWatches()
	watches.Wait()
	q.ShutDownWithDrain()
	workers.Wait()
	f.c.fastPathGateWrites.Clear()
	f.mu.Lock()
	f.pods, f.nodes, f.instance = nil, nil, nil
	f.mu.Unlock()
	log.Info("caches synced; fast path done")
	return nil
}

// replayQuiet is how long the watches must stay silent, with nothing queued or in flight, for
// the replay of the downtime's changes to count as done; maxReplayHold bounds how long the
// informers wait for it.
const (
	replayQuiet   = 25 * time.Millisecond
	maxReplayHold = 2 * time.Second
)

// replayThenRelease lets the informers start once the changes made while the controller was down
// have been applied (or after maxReplayHold): until then the fast path has the API server and
// the CPU to itself instead of competing with full lists of the fleet.
func (f *fastPath) replayThenRelease(ctx context.Context, q workqueue.TypedDelayingInterface[types.NamespacedName], started time.Time) {
	if f.held == nil {
		return
	}
	start := time.Now()
	f.lastEvent.Store(start.UnixNano())
	for ctx.Err() == nil && time.Since(start) < maxReplayHold {
		quiet := time.Since(time.Unix(0, f.lastEvent.Load())) >= replayQuiet
		if quiet && q.Len() == 0 && f.inflight.Load() == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	f.releaseCache()
	f.mu.Lock()
	taken := len(f.taken)
	f.mu.Unlock()
	since := func(unixNano int64) time.Duration {
		if unixNano == 0 {
			return 0
		}
		return time.Unix(0, unixNano).Sub(started).Round(time.Microsecond)
	}
	f.c.log.WithName("resume").Info("replay done; the informers start", "held", time.Since(start).Round(time.Millisecond), "bindings", taken,
		"firstEvent", since(f.firstEvent.Load()), "firstReconciled", since(f.firstDone.Load()))
}

func (f *fastPath) releaseCache() {
	if f.held != nil {
		f.held.release()
	}
}

// heldCache is the manager's cache with its start held back until release: with Resume,
// ManagerOptions installs it so the fast path replays the downtime's changes first.
type heldCache struct {
	cache.Cache
	released chan struct{}
	once     sync.Once
}

func holdCache(newCache cache.NewCacheFunc) cache.NewCacheFunc {
	return func(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
		c, err := newCache(cfg, opts)
		if err != nil {
			return nil, err
		}
		return &heldCache{Cache: c, released: make(chan struct{})}, nil
	}
}

func (h *heldCache) Start(ctx context.Context) error {
	select {
	case <-h.released:
	case <-ctx.Done():
		return nil
	}
	return h.Cache.Start(ctx)
}

func (h *heldCache) release() { h.once.Do(func() { close(h.released) }) }

// maxWatermarkAge, in ResumeIntervals (5 min by default), bounds the downtime the fast path
// replays; maxFastPathBindings bounds the bindings it takes on.
const (
	maxWatermarkAge     = 30
	maxFastPathBindings = 1000
)

// fastPathWorkers: a fast-path reconcile waits on a dozen API server and AWS round trips in
// turn, so the replay runs more of them at once than the normal path's workers (AWS calls still
// pass the client-side throttle).
const fastPathWorkers = 16

// watchKind watches one kind from the watermark rv, calls opened once its watches are open, and
// feeds the bindings their events map to into q until ctx ends or the watches fail. A controller
// limited to several namespaces watches all namespaces and drops the others' events: one watch
// the API server replays from its history instead of one per namespace, which at restart
// competed with the first reconcile. Should RBAC allow no cluster-wide watch, it watches each
// namespace.
func (f *fastPath) watchKind(ctx context.Context, newList func() client.ObjectList, rv string, q workqueue.TypedDelayingInterface[types.NamespacedName], opened func()) {
	namespaces := f.c.opts.Namespaces
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
func (f *fastPath) open(ctx context.Context, list client.ObjectList, namespace, rv string) (watch.Interface, error) {
	return f.watcher.Watch(ctx, list, &client.ListOptions{Namespace: namespace,
		Raw: &metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true}})
}

// consume feeds the bindings that a watch's events map to into q, until ctx ends or the watch
// fails; err is the watch's opening error.
func (f *fastPath) consume(ctx context.Context, w watch.Interface, err error, list client.ObjectList, namespace string, q workqueue.TypedDelayingInterface[types.NamespacedName]) {
	log := f.c.log.WithName("resume").WithValues("list", fmt.Sprintf("%T", list), "namespace", namespace)
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
func (f *fastPath) watched(namespace string) bool {
	return len(f.c.opts.Namespaces) == 0 || namespace == "" || slices.Contains(f.c.opts.Namespaces, namespace)
}

// take admits key unless maxFastPathBindings distinct bindings were taken already.
func (f *fastPath) take(key types.NamespacedName) bool {
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

// bindingsOf maps an event to the bindings whose reconcile it may change.
func (f *fastPath) bindingsOf(ctx context.Context, typ watch.EventType, obj client.Object) []types.NamespacedName {
	switch o := obj.(type) {
	case *v1beta1.TargetGroupBinding:
		f.mu.Lock()
		delete(f.listed, client.ObjectKeyFromObject(o))
		f.mu.Unlock()
		switch {
		case typ == watch.Deleted:
			return nil
		case !o.DeletionTimestamp.IsZero():
			// Being deleted: its targets are deregistered while the finalizer holds it.
			if !controllerutil.ContainsFinalizer(o, FinalizerName) {
				return nil
			}
		case o.Generation == ptr.Deref(o.Status.ObservedGeneration, 0):
			// Only a new or changed spec: the controller's own writes (checkpoints, status)
			// change neither generation nor observedGeneration's lag.
			return nil
		}
		return []types.NamespacedName{client.ObjectKeyFromObject(o)}
	case *corev1.Service:
		return f.bindingsOfService(ctx, o.Namespace, o.Name)
	case *discoveryv1.EndpointSlice:
		if name := o.Labels[discoveryv1.LabelServiceName]; name != "" {
			svc := types.NamespacedName{Namespace: o.Namespace, Name: name}
			f.mu.Lock()
			f.sliceRV[svc] = newerRV(o.ResourceVersion, f.sliceRV[svc])
			f.mu.Unlock()
			return f.bindingsOfService(ctx, o.Namespace, name)
		}
	case *corev1.Pod:
		return f.bindingsOfPod(typ, o)
	case *corev1.Node:
		return f.bindingsOfNode(ctx, typ, o)
	}
	return nil
}

// bindingsOfPod maps a pod event to the bindings the pod's gates name (pods without gates are
// covered by their slices), unless it is the fast path's own gate patch or, after an earlier
// event of the pod, changed nothing the bindings depend on.
func (f *fastPath) bindingsOfPod(typ watch.EventType, pod *corev1.Pod) []types.NamespacedName {
	bindings := gatingBindings(pod)
	if len(bindings) == 0 {
		return nil
	}
	key := client.ObjectKeyFromObject(pod)
	f.mu.Lock()
	prev := f.pods[key]
	if typ == watch.Deleted {
		delete(f.pods, key)
	} else {
		f.pods[key] = pod
	}
	f.mu.Unlock()
	if rv, ok := f.c.fastPathGateWrites.Load(key); ok && rv == pod.ResourceVersion {
		return nil
	}
	if typ == watch.Modified && prev != nil && !gatedPodChanged(prev, pod) {
		return nil
	}
	return bindings
}

// bindingsOfNode maps a node event to the instance bindings, unless it changed nothing they
// depend on since the node's previous event or, for its first, since the watermark. When the
// node's state at the watermark cannot be read (typically compacted), the event is left to the
// normal path rather than reconciling every instance binding on a guess.
func (f *fastPath) bindingsOfNode(ctx context.Context, typ watch.EventType, node *corev1.Node) []types.NamespacedName {
	f.mu.Lock()
	prev, seen := f.nodes[node.Name]
	f.mu.Unlock()
	if !seen {
		var err error
		if prev, err = f.nodeAtWatermark(ctx, node.Name); err != nil {
			if ctx.Err() == nil {
				f.c.log.WithName("resume").Info("reading a node at the watermark; its change waits for the caches",
					"node", node.Name, "error", err.Error())
			}
			return nil
		}
	}
	f.mu.Lock()
	f.nodes[node.Name] = node
	if typ == watch.Deleted {
		f.nodes[node.Name] = nil
	}
	f.nodeRV = newerRV(node.ResourceVersion, f.nodeRV)
	f.mu.Unlock()
	if typ == watch.Modified && prev != nil && !nodeChanged(prev, node) {
		return nil
	}
	return f.instanceBindings(ctx)
}

// nodeAtWatermark reads a node as it was at the watermark; nil if it did not exist. The list is
// exact at that resource version: the API server serves it from its watch cache's snapshots
// while the watermark is within their history (a restart's downtime plus at most one
// ResumeInterval), else from etcd until the revision is compacted. It runs once per node with an
// event, so a cluster whose kubelets report status during the downtime pays one read per node.
func (f *fastPath) nodeAtWatermark(ctx context.Context, name string) (*corev1.Node, error) {
	var list corev1.NodeList
	if err := f.c.apiReader.List(ctx, &list, client.MatchingFields{"metadata.name": name}, &client.ListOptions{
		Raw: &metav1.ListOptions{ResourceVersion: f.watermark, ResourceVersionMatch: metav1.ResourceVersionMatchExact}}); err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, nil
	}
	return &list.Items[0], nil
}

// instanceBindings lists, once, the bindings whose targets may be instances (targetType instance
// or unset) by the CRD's selectable field spec.targetType, in each watched namespace (or all);
// like bindingsOfService, consistently, and keeping the bindings for their first reconcile.
func (f *fastPath) instanceBindings(ctx context.Context) []types.NamespacedName {
	f.mu.Lock()
	keys := f.instance
	f.mu.Unlock()
	if keys != nil {
		return keys
	}
	namespaces := f.c.opts.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	keys = []types.NamespacedName{}
	for _, ns := range namespaces {
		nsKeys, err := f.listBindings(ctx, client.InNamespace(ns), client.MatchingFieldsSelector{
			Selector: fields.OneTermNotEqualSelector(indexTargetType, string(v1beta1.TargetTypeIP))})
		if err != nil {
			if ctx.Err() == nil {
				f.c.log.Error(err, "resume: listing the instance bindings", "namespace", ns)
			}
			return nil
		}
		keys = append(keys, nsKeys...)
	}
	f.mu.Lock()
	f.instance = keys
	f.mu.Unlock()
	return keys
}

// nodeListOptions read the nodes at or after the watermark and the newest node event taken, for
// the same reason as sliceListOptions.
func (f *fastPath) nodeListOptions() []client.ListOption {
	f.mu.Lock()
	rv := newerRV(f.watermark, f.nodeRV)
	f.mu.Unlock()
	return notOlderThan(rv)
}

func notOlderThan(rv string) []client.ListOption {
	return []client.ListOption{&client.ListOptions{Raw: &metav1.ListOptions{
		ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}}}
}

// sliceListOptions read a Service's EndpointSlices at or after the watermark and the newest of
// its slice events the fast path took, instead of consistently. A consistent list waits until
// the API server's watch cache has caught up with etcd's newest revision; once the fast path's own
// binding patches are the newest writes, the slices' cache gets there only with an etcd progress
// notification, which the API server requests at most every 100 ms (at 10k bindings, slice lists
// took 36-89 ms against 4-11 ms). The slices need not be newer: a later change of them is an
// event the fast path takes and reconciles again, and an event taken is in the watch cache of the
// API server that sent it (waiting for the event's resource version also holds an API server
// behind the same load balancer whose cache lags that one).
func (f *fastPath) sliceListOptions(svc types.NamespacedName) []client.ListOption {
	f.mu.Lock()
	rv := newerRV(f.watermark, f.sliceRV[svc])
	f.mu.Unlock()
	return notOlderThan(rv)
}

// newerRV is the newer of two resource versions; a if b is empty or not comparable.
func newerRV(a, b string) string {
	if c, err := resourceversion.CompareResourceVersion(a, b); err == nil && c < 0 {
		return b
	}
	return a
}

// bindingsOfService lists a Service's bindings from the API server by the CRD's selectable field
// spec.serviceRef.name, once per Service. The list is consistent: its bindings are reconciled
// without a second read (listed), so they must show, say, a checkpoint the crashed instance reset.
func (f *fastPath) bindingsOfService(ctx context.Context, namespace, name string) []types.NamespacedName {
	svc := types.NamespacedName{Namespace: namespace, Name: name}
	f.mu.Lock()
	keys, ok := f.bindings[svc]
	f.mu.Unlock()
	if ok {
		return keys
	}
	keys, err := f.listBindings(ctx, client.InNamespace(namespace), client.MatchingFields{indexServiceName: name})
	if err != nil {
		if ctx.Err() == nil {
			f.c.log.Error(err, "resume: listing the bindings of a Service", "service", svc)
		}
		return nil
	}
	f.mu.Lock()
	f.bindings[svc] = keys
	f.mu.Unlock()
	return keys
}

// listBindings lists bindings from the API server and keeps them for their next reconcile
// (listed); it returns their keys.
func (f *fastPath) listBindings(ctx context.Context, opts ...client.ListOption) ([]types.NamespacedName, error) {
	var list v1beta1.TargetGroupBindingList
	if err := f.c.apiReader.List(ctx, &list, opts...); err != nil {
		return nil, err
	}
	var keys []types.NamespacedName
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range list.Items {
		key := client.ObjectKeyFromObject(&list.Items[i])
		keys = append(keys, key)
		f.listed[key] = &list.Items[i]
	}
	return keys, nil
}

// reconcile is one fast-path reconcile with live reads; it returns the requeue delay asked for.
// Anything it skips or fails is left to the normal path, which reconciles every binding once its
// caches have synced.
func (f *fastPath) reconcile(ctx context.Context, key types.NamespacedName) time.Duration {
	f.mu.Lock()
	tgb := f.listed[key]
	delete(f.listed, key)
	f.mu.Unlock()
	if tgb == nil {
		tgb = &v1beta1.TargetGroupBinding{}
		if err := f.c.apiReader.Get(ctx, key, tgb); err != nil {
			return 0
		}
	}
	svc := types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Spec.ServiceRef.Name}
	ctx = context.WithValue(ctx, liveReadsKey{}, liveLists{slices: f.sliceListOptions(svc), nodes: f.nodeListOptions()})
	if !tgb.DeletionTimestamp.IsZero() {
		// Of finalize, only the deregistration: dropping the binding's security group rules needs
		// every binding's rules, from the synced cache, so they and the finalizer are left to the
		// normal path (whose finalize then finds nothing left to deregister).
		err := f.c.deregisterBinding(ctx, tgb)
		result := metrics.ResultFull
		if err != nil {
			result = metrics.ResultError
			if ctx.Err() == nil {
				f.c.log.V(1).Info("resume: deregistering a deleted binding failed; left to the normal path", "targetGroupBinding", key, "error", err.Error())
			}
		}
		f.c.metrics.ResumeReconciles.WithLabelValues(result).Inc()
		return 0
	}
	result, res, err := f.c.reconcile(ctx, tgb)
	if err != nil {
		result = metrics.ResultError
		if ctx.Err() == nil {
			f.c.log.V(1).Info("resume: reconcile failed; left to the normal path", "targetGroupBinding", key, "error", err.Error())
		}
	}
	f.c.metrics.ResumeReconciles.WithLabelValues(result).Inc()
	if err != nil {
		return 0
	}
	return res.RequeueAfter
}
