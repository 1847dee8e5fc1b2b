// Package resume is the controller's restart fast path: from the manager's start until its
// caches have synced, it watches bindings, Services, EndpointSlices, gated Pods and Nodes from
// the resume watermark and has the controller reconcile the bindings they map to with live
// reads. It also holds the manager's cache back while it replays (HeldCache) and reads and writes
// the watermark's ConfigMap.
//
// It covers IP and instance bindings; security group rules are only added on it, never revoked,
// since that needs every binding's rules (from the synced cache). Of a binding being deleted it
// has the targets deregistered; its rules and finalizer wait. Pod changes reach it through the
// EndpointSlices they change and, for a pod with readiness gates, through its own events too:
// its containers becoming ready changes its targets but not its slice (the pod is not Ready until
// the gate is). A node change reaches every instance binding, but only if it changed what the
// node handler watches (endpoints.NodeChanged): a kubelet's periodic status report would
// otherwise reconcile them all. Changes it does not cover wait for the normal path, as without
// the fast path.
package resume

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// Reconciler is what the fast path needs of the controller.
type Reconciler interface {
	// ReconcileLive reconciles tgb reading from the API server as reads says, and returns the
	// requeue delay it asks for (0: none). What it skips or fails is left to the normal path,
	// which reconciles every binding once the caches have synced.
	ReconcileLive(ctx context.Context, tgb *v1beta1.TargetGroupBinding, reads *Reads) time.Duration
}

// Config configures a FastPath.
type Config struct {
	Reconciler Reconciler
	// Cache is the manager's: the fast path ends when it has synced. Held is the same cache when
	// its start is held (HeldCacheOf), nil otherwise.
	Cache cache.Cache
	Held  *HeldCache
	// Reader reads from the API server; Watcher watches it.
	Reader  client.Reader
	Watcher client.WithWatch
	// Namespaces are the watched namespaces (none: all).
	Namespaces []string
	// Workers is the normal path's number of workers; the fast path runs at least fastPathWorkers.
	Workers int
	// Finalizer is the controller's finalizer on the bindings.
	Finalizer string
	// WatermarkNamespace and LeaderElectionID name the watermark's ConfigMap; a watermark
	// recorded more than MaxWatermarkAge ago is not replayed.
	WatermarkNamespace, LeaderElectionID string
	MaxWatermarkAge                      time.Duration
	Clock                                clock.PassiveClock
	Log                                  logr.Logger
	// Done is closed when the fast path has drained: the normal path's workers wait for it, so a
	// binding is never reconciled by both at once.
	Done chan<- struct{}
}

// FastPath is the resume fast path, a manager runnable in the cache group (GetCache).
type FastPath struct {
	cfg Config

	lastEvent atomic.Int64 // unix nanos of the last event taken
	inflight  atomic.Int32 // reconciles and event mappings under way
	// Unix nanos of the first event taken and the first reconcile done: logged with the replay,
	// they say where a restart's first change spent its time.
	firstEvent, firstDone atomic.Int64
	// gateWrites holds, per pod, the resource version of the fast path's last readiness gate
	// patch of it (Reads.GateWritten), for the pod watch to skip.
	gateWrites sync.Map

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
	// if it changed what the pod handler watches (readinessgate.PodChanged): not, say, the Ready
	// condition the kubelet sets after a gate flip.
	pods map[types.NamespacedName]*corev1.Pod
	// nodes holds each node's last event object (nil after a deletion) to compare its next event
	// with, the first with its state at the watermark; nodeRV is the newest node event's resource
	// version (nodeListOptions); instance are the instance bindings, listed once.
	nodes    map[string]*corev1.Node
	nodeRV   string
	instance []types.NamespacedName
}

// New builds the fast path; the caller adds it to the manager.
func New(cfg Config) *FastPath {
	return &FastPath{cfg: cfg,
		bindings: map[types.NamespacedName][]types.NamespacedName{}, taken: map[types.NamespacedName]bool{},
		listed: map[types.NamespacedName]*v1beta1.TargetGroupBinding{}, sliceRV: map[types.NamespacedName]string{},
		pods: map[types.NamespacedName]*corev1.Pod{}, nodes: map[string]*corev1.Node{}}
}

// GetCache puts the fast path into the manager's cache group, which starts with the informers;
// every other runnable starts only after they have synced. The returned cache reports itself
// synced, so the fast path does not hold up the manager's start.
func (f *FastPath) GetCache() cache.Cache { return alreadySynced{f.cfg.Cache} }

type alreadySynced struct{ cache.Cache }

func (alreadySynced) WaitForCacheSync(context.Context) bool { return true }

// maxFastPathBindings bounds the bindings the fast path takes on.
const maxFastPathBindings = 1000

// fastPathWorkers: a fast-path reconcile waits on a dozen API server and AWS round trips in
// turn, so the replay runs more of them at once than the normal path's workers (AWS calls still
// pass the client-side throttle).
const fastPathWorkers = 16

// Start runs the fast path; it returns once the caches have synced and its queue has drained.
func (f *FastPath) Start(ctx context.Context) error {
	defer close(f.cfg.Done)
	defer f.releaseCache()
	started := time.Now()
	w, ok := f.readWatermark(ctx, started)
	if !ok {
		return nil
	}
	f.watermark = w.ResourceVersion
	watchCtx, stopWatches := context.WithCancel(ctx)
	defer stopWatches()
	q := workqueue.NewTypedDelayingQueue[types.NamespacedName]()
	var workers sync.WaitGroup
	for range max(f.cfg.Workers, fastPathWorkers) {
		workers.Go(func() { f.work(ctx, q) })
	}
	watches := f.watchAll(watchCtx, w.ResourceVersion, q)
	f.cfg.Log.WithName("resume").V(1).Info("watching from the watermark", "sinceStart", time.Since(started).Round(time.Microsecond))
	f.replayThenRelease(ctx, q, started)
	f.cfg.Cache.WaitForCacheSync(ctx)
	stopWatches()
	watches.Wait()
	q.ShutDownWithDrain()
	workers.Wait()
	f.gateWrites.Clear()
	f.mu.Lock()
	f.pods, f.nodes, f.instance = nil, nil, nil
	f.mu.Unlock()
	f.cfg.Log.WithName("resume").Info("caches synced; fast path done")
	return nil
}

// readWatermark reads the watermark to replay from; false when there is none to replay.
func (f *FastPath) readWatermark(ctx context.Context, started time.Time) (Watermark, bool) {
	log := f.cfg.Log.WithName("resume")
	w, ok, err := ReadWatermark(ctx, f.cfg.Reader, f.cfg.WatermarkNamespace, f.cfg.LeaderElectionID)
	switch {
	case err != nil:
		log.Error(err, "reading the resume watermark; waiting for the caches")
		return w, false
	case !ok:
		log.Info("no resume watermark; waiting for the caches")
		return w, false
	case f.cfg.Clock.Since(w.RecordedAt) > f.cfg.MaxWatermarkAge:
		// After a long downtime most of the fleet may have changed: a replay would be a slower
		// full reconcile, with live reads.
		log.Info("resume watermark too old; waiting for the caches", "recordedAt", w.RecordedAt)
		return w, false
	}
	log.Info("resuming from the watermark", "resourceVersion", w.ResourceVersion, "recordedAt", w.RecordedAt,
		"read", time.Since(started).Round(time.Microsecond))
	return w, true
}

// work reconciles the queue's bindings until it shuts down.
func (f *FastPath) work(ctx context.Context, q workqueue.TypedDelayingInterface[types.NamespacedName]) {
	for {
		key, shutdown := q.Get()
		if shutdown {
			return
		}
		f.inflight.Add(1)
		// A gated target not healthy yet asks for a requeue: honoured while the fast path runs,
		// so its gate need not wait for the caches.
		if after := f.reconcile(ctx, key); after > 0 {
			q.AddAfter(key, after)
		}
		f.firstDone.CompareAndSwap(0, time.Now().UnixNano())
		f.inflight.Add(-1)
		q.Done(key)
	}
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
func (f *FastPath) replayThenRelease(ctx context.Context, q workqueue.TypedDelayingInterface[types.NamespacedName], started time.Time) {
	if f.cfg.Held == nil {
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
	f.cfg.Log.WithName("resume").Info("replay done; the informers start", "held", time.Since(start).Round(time.Millisecond), "bindings", taken,
		"firstEvent", since(f.firstEvent.Load()), "firstReconciled", since(f.firstDone.Load()))
}

func (f *FastPath) releaseCache() {
	if f.cfg.Held != nil {
		f.cfg.Held.release()
	}
}
