// Package deferred schedules the forced full reconcile that follows a checkpoint early exit.
//
// Upstream (annotation strategy) hands each early-exited TargetGroupBinding to a delaying queue with
// one worker; when due, the worker resets the checkpoint with a PATCH, which triggers a full
// reconcile. A processed set (TTL = sync period) keeps TargetGroupBindings that already had a full
// reconcile since start, or are already scheduled, from being deferred again. The compact strategy
// uses the same schedule but requeues inside the controller (Timers) instead of writing to the API.
package deferred

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"math/bits"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/controller/internal/ttlcache"
)

// Schedule computes deferral delays: Delay plus jitter in [0, Jitter). The jitter is a hash of
// (seed, binding key, round), not a draw from a shared stream, so a binding's delay does not
// depend on the order in which concurrent workers reach the schedule, and runs at different time
// scales (same seed, scaled durations) give each binding the same fraction of the window.
// round counts the key's previous delays, so repeated deferrals of one binding still spread.
type Schedule struct {
	Delay  time.Duration
	Jitter time.Duration
	seed   uint64
	mu     sync.Mutex
	rounds map[types.NamespacedName]uint64
}

// NewSchedule creates a schedule whose jitter is derived from seed.
func NewSchedule(delay, jitter time.Duration, seed uint64) *Schedule {
	return &Schedule{Delay: delay, Jitter: jitter, seed: seed, rounds: map[types.NamespacedName]uint64{}}
}

// Next returns key's next delay: For(key, n) for its n-th call since the last Forget.
func (s *Schedule) Next(key types.NamespacedName) time.Duration {
	if s.Jitter <= 0 {
		return s.Delay
	}
	s.mu.Lock()
	round := s.rounds[key]
	s.rounds[key] = round + 1
	s.mu.Unlock()
	return s.For(key, round)
}

// For is the delay of key in a given round; a pure function of (seed, key, round).
func (s *Schedule) For(key types.NamespacedName, round uint64) time.Duration {
	if s.Jitter <= 0 {
		return s.Delay
	}
	// Scale the 64-bit hash to [0, Jitter): the high word of hash*Jitter, i.e. floor(u*Jitter)
	// for u = hash/2^64 in [0, 1); the same u at every time scale.
	hi, _ := bits.Mul64(keyHash(s.seed, key, round), uint64(s.Jitter))
	return s.Delay + time.Duration(hi)
}

// Forget drops key's round count (the binding is gone).
func (s *Schedule) Forget(key types.NamespacedName) {
	s.mu.Lock()
	delete(s.rounds, key)
	s.mu.Unlock()
}

// keyHash is FNV-1a over seed, namespace, name and round, finished with the splitmix64 mixer
// so that keys differing in one character land far apart.
func keyHash(seed uint64, key types.NamespacedName, round uint64) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], seed)
	_, _ = h.Write(buf[:])
	_, _ = h.Write([]byte(key.Namespace))
	_, _ = h.Write([]byte{'/'})
	_, _ = h.Write([]byte(key.Name))
	binary.LittleEndian.PutUint64(buf[:], round)
	_, _ = h.Write(buf[:])
	return mix64(h.Sum64())
}

// mix64 is the splitmix64 finaliser.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Processed is the set of TargetGroupBindings not to defer again (TTL = sync period).
type Processed struct {
	c *ttlcache.Cache[types.NamespacedName, struct{}]
}

// NewProcessed creates the set.
func NewProcessed(ttl time.Duration, clk clock.PassiveClock) *Processed {
	return &Processed{c: ttlcache.New[types.NamespacedName, struct{}](ttl, clk)}
}

// Mark adds key.
func (p *Processed) Mark(key types.NamespacedName) { p.c.Set(key, struct{}{}) }

// Has reports whether key is in the set.
func (p *Processed) Has(key types.NamespacedName) bool { _, ok := p.c.Get(key); return ok }

// Queue is the upstream delaying queue with one worker.
type Queue struct {
	q        workqueue.TypedDelayingInterface[types.NamespacedName]
	schedule *Schedule
	depth    prometheus.Gauge
	mu       sync.Mutex
	pending  map[types.NamespacedName]bool
	handle   func(ctx context.Context, key types.NamespacedName) error
	log      logr.Logger
}

// QueueOptions configures a Queue.
type QueueOptions struct {
	Schedule *Schedule
	Clock    clock.WithTicker
	Depth    prometheus.Gauge // tgb_deferred_queue_depth
	// Handle runs when an item is due (upstream: GET the TGB and reset its checkpoint).
	Handle func(ctx context.Context, key types.NamespacedName) error
	Log    logr.Logger
}

// NewQueue creates the queue; Start runs its worker.
func NewQueue(o QueueOptions) *Queue {
	return &Queue{
		q: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[types.NamespacedName]{
			Clock: o.Clock, Name: "", // unnamed: no global workqueue metrics, so many instances may coexist
		}),
		schedule: o.Schedule, depth: o.Depth, pending: map[types.NamespacedName]bool{},
		handle: o.Handle, log: o.Log,
	}
}

// Add schedules key after the next delay unless it is already pending.
func (q *Queue) Add(key types.NamespacedName) {
	q.mu.Lock()
	if q.pending[key] {
		q.mu.Unlock()
		return
	}
	q.pending[key] = true
	q.mu.Unlock()
	q.depth.Inc()
	q.q.AddAfter(key, q.schedule.Next(key))
}

// Start runs the single worker until ctx ends (a manager.Runnable).
func (q *Queue) Start(ctx context.Context) error {
	go func() {
		<-ctx.Done()
		q.q.ShutDown()
	}()
	for {
		key, shutdown := q.q.Get()
		if shutdown {
			return nil
		}
		q.mu.Lock()
		delete(q.pending, key)
		q.mu.Unlock()
		q.depth.Dec()
		if err := q.handle(ctx, key); err != nil && ctx.Err() == nil {
			q.log.Error(err, "deferred reconcile failed; retrying", "targetGroupBinding", key)
			q.Add(key)
		}
		q.q.Done(key)
	}
}

// Timers is the compact strategy's in-controller schedule: when a key's timer is due, the next
// reconcile of that key must be a full one.
type Timers struct {
	mu    sync.Mutex
	due   map[types.NamespacedName]time.Time
	clk   clock.PassiveClock
	depth prometheus.Gauge
}

// NewTimers creates the schedule.
func NewTimers(clk clock.PassiveClock, depth prometheus.Gauge) *Timers {
	return &Timers{due: map[types.NamespacedName]time.Time{}, clk: clk, depth: depth}
}

// Arm schedules key after d unless it is already armed; it returns the time left until due.
func (t *Timers) Arm(key types.NamespacedName, d time.Duration) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.clk.Now()
	if due, ok := t.due[key]; ok {
		return max(due.Sub(now), 0)
	}
	t.due[key] = now.Add(d)
	t.depth.Inc()
	return d
}

// Check reports whether key is armed and, if so, whether it is due (then disarmed) or the time left.
func (t *Timers) Check(key types.NamespacedName) (armed, due bool, left time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.due[key]
	if !ok {
		return false, false, 0
	}
	if left = at.Sub(t.clk.Now()); left > 0 {
		return true, false, left
	}
	t.Disarm(key, true)
	return true, true, 0
}

// Left reports the time until key's timer is due (0 when due) and whether it is armed; it never disarms.
func (t *Timers) Left(key types.NamespacedName) (time.Duration, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at, ok := t.due[key]
	if !ok {
		return 0, false
	}
	return max(at.Sub(t.clk.Now()), 0), true
}

// Disarm drops key's timer (locked: whether t.mu is already held).
func (t *Timers) Disarm(key types.NamespacedName, locked bool) {
	if !locked {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	if _, ok := t.due[key]; ok {
		delete(t.due, key)
		t.depth.Dec()
	}
}
