package sut

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/restartsim/restartsim/internal/poll"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/runerr"
)

// informerCount counts the informers a manager's controllers asked its cache for.
type informerCount struct{ n atomic.Int64 }

// countingCache is a manager's cache that counts the informers asked of it: a controller asks for
// one per watched kind as it starts, so once the count stops growing across a sync, every
// controller's informers are in the sync.
type countingCache struct {
	cache.Cache
	n *informerCount
}

func (c *countingCache) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	c.n.n.Add(1)
	return c.Cache.GetInformer(ctx, obj, opts...)
}

func (c *countingCache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	c.n.n.Add(1)
	return c.Cache.GetInformerForKind(ctx, gvk, opts...)
}

// replicaSignals are what the harness reads of one replica as it runs.
type replicaSignals struct {
	mu sync.Mutex
	// synced is when its caches synced after it began leading (zero: not yet).
	synced time.Time
	// base is the process's reconcile work when it began leading: controller-runtime's metrics are
	// the process's, so a replica's own work is what was added since.
	base *WorkPoint
}

func (s *replicaSignals) get() (time.Time, *WorkPoint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.synced, s.base
}

// observe follows a replica from its start: once it leads, the process's reconcile work and queue
// depth so far (its baseline: its controllers start now, and their first events come after a
// LIST), then when its manager's cache has synced every informer its controllers asked
// for. Controllers start only once their manager leads, so the sync is the one the restart waits for.
func (m *managed) observe(ctx context.Context, r *managedReplica, mgr manager.Manager) {
	select {
	case <-ctx.Done():
		return
	case <-r.elected:
	}
	base := m.processWork()
	r.sig.mu.Lock()
	r.sig.base = &base
	r.sig.mu.Unlock()
	for r.informers.n.Load() == 0 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
	for {
		n := r.informers.n.Load()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return
		}
		if r.informers.n.Load() == n {
			break
		}
	}
	r.sig.mu.Lock()
	r.sig.synced = time.Now()
	r.sig.mu.Unlock()
}

// processWork reads the strategy's controllers' work from controller-runtime's registry.
func (m *managed) processWork() WorkPoint {
	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return WorkPoint{}
	}
	mfs := make(map[string]*dto.MetricFamily, len(workFamilies))
	for _, mf := range fams {
		if slices.Contains(workFamilies, mf.GetName()) {
			mfs[mf.GetName()] = mf
		}
	}
	return workPoint(mfs, controllerRuntimeWork, m.c.Strategy.InProcess.ReconcileControllers)
}

// leading is the running replica that leads, with its signals (nil: none).
func (m *managed) leading() *managedReplica { return m.leader() }

// AwaitSettled implements Controllers: the leader's caches synced (when it has informers at all)
// and its work queues empty for a few polls in a row.
func (m *managed) AwaitSettled(ctx context.Context, timeout time.Duration) error {
	empty := 0
	synced, depth := false, -1.0
	err := poll.UntilAborted(ctx, m.exited, timeout, poll.Every(50*time.Millisecond), func() (bool, error) {
		synced, depth = false, -1.0
		if l := m.leading(); l != nil {
			at, _ := l.sig.get()
			synced = !at.IsZero() || l.informers.n.Load() == 0
			if d, ok := m.QueueDepth()["workqueue_depth"]; ok {
				depth = d
			} else {
				depth = 0
			}
		}
		if synced && depth == 0 {
			empty++
		} else {
			empty = 0
		}
		return empty >= settlePolls, nil
	})
	switch {
	case errors.Is(err, poll.ErrTimeout):
		return &results.ViolationError{Kind: results.ViolationInvariant, Details: []string{fmt.Sprintf(
			"warm-up: the in-process manager did not settle within %s (caches synced: %v, work queue depth %g)", timeout, synced, depth)}}
	case errors.Is(err, poll.ErrAborted):
		return runerr.BadInput(m.exitErr)
	}
	return err
}

// QueueDepth implements Controllers: the leader's work queues, from controller-runtime's registry.
func (m *managed) QueueDepth() map[string]float64 {
	if w, _ := m.leaderWork(); w.QueueDepth != nil {
		return map[string]float64{"workqueue_depth": *w.QueueDepth}
	}
	return map[string]float64{}
}

// leaderWork is the leader's work since it began leading (nil: no leader yet): the registry's
// figures less their value then. The queue depth too: a series is shared by every queue of one
// controller name in the process, and a crashed replica's queue keeps what it held.
func (m *managed) leaderWork() (WorkPoint, *managedReplica) {
	l := m.leading()
	if l == nil {
		return WorkPoint{}, nil
	}
	_, base := l.sig.get()
	if base == nil {
		return WorkPoint{}, nil
	}
	w := m.processWork()
	w.ReconcileSeconds -= base.ReconcileSeconds
	w.Reconciles -= base.Reconciles
	if w.QueueDepth != nil && base.QueueDepth != nil {
		d := max(0, *w.QueueDepth-*base.QueueDepth)
		w.QueueDepth = &d
	}
	return w, l
}

// Observed implements Controllers.
func (m *managed) Observed() Observations {
	m.mu.Lock()
	all := append([]*managedReplica(nil), m.all...)
	m.mu.Unlock()
	var synced []time.Time
	for _, r := range all {
		if at, _ := r.sig.get(); !at.IsZero() {
			synced = append(synced, at)
		}
	}
	return Observations{CachesSynced: synced, Takeover: m.takeover.get(),
		Work: WorkSource{Source: results.WorkSourceControllerRuntime, Controllers: m.c.Strategy.InProcess.ReconcileControllers}}
}

// ScrapeWork implements WorkScraper: the leader's reconcile work since it began leading; a
// standby reconciles nothing.
func (m *managed) ScrapeWork() []WorkPoint {
	w, l := m.leaderWork()
	if l == nil {
		return nil
	}
	w.Instance, w.At = l.id, time.Now()
	return []WorkPoint{w}
}

// ScrapeMemory implements MemoryScraper: the replicas share the test's process, whose memory is
// all that can be read.
func (m *managed) ScrapeMemory() []MemoryPoint { return harnessMemory() }
