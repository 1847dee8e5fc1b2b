package controller

import (
	"sync"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// progress tracks which immediate queue additions have been reconciled, so the resume watermark
// (resume.Writer) can tell when every request added before a moment has been worked off. Delayed and
// rate-limited additions (requeues, retries) are not events and are not tracked.
type progress struct {
	mu       sync.Mutex
	seq      uint64
	pending  map[reconcile.Request]uint64 // queued: the sequence number of its first unworked add
	inflight map[reconcile.Request]uint64 // being reconciled: the add it covers
}

func newProgress() *progress {
	return &progress{pending: map[reconcile.Request]uint64{}, inflight: map[reconcile.Request]uint64{}}
}

func (p *progress) added(r reconcile.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	if _, ok := p.pending[r]; !ok {
		p.pending[r] = p.seq
	}
}

// started moves a tracked request to in flight; a queue hands out each item to one worker at a time.
func (p *progress) started(r reconcile.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.pending[r]; ok {
		p.inflight[r] = s
		delete(p.pending, r)
	}
}

func (p *progress) done(r reconcile.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.inflight, r)
}

// Mark returns a barrier: every addition so far has a sequence number ≤ it.
func (p *progress) Mark() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq
}

// Passed reports whether every addition up to barrier has been reconciled.
func (p *progress) Passed(barrier uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range []map[reconcile.Request]uint64{p.pending, p.inflight} {
		for _, s := range m {
			if s <= barrier {
				return false
			}
		}
	}
	return true
}

// progressQueue is the controller's work queue reporting to a progress. It is always a
// priority queue to controller-runtime, delegating like controller-runtime's own wrapper when the
// underlying queue is a plain rate-limiting queue.
type progressQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	pq priorityqueue.PriorityQueue[reconcile.Request] // nil without the priority queue
	p  *progress
}

var _ priorityqueue.PriorityQueue[reconcile.Request] = progressQueue{}

// newProgressQueue returns controller-runtime's default queue constructor (priority queue or
// rate-limiting queue, as builder would build it) wrapped in a progressQueue.
func newProgressQueue(p *progress, usePriorityQueue bool) func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		if usePriorityQueue {
			pq := priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) { o.RateLimiter = rl })
			return progressQueue{TypedRateLimitingInterface: pq, pq: pq, p: p}
		}
		q := workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name})
		return progressQueue{TypedRateLimitingInterface: q, p: p}
	}
}

func (q progressQueue) Add(r reconcile.Request) {
	q.p.added(r)
	q.TypedRateLimitingInterface.Add(r)
}

func (q progressQueue) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	if o.After <= 0 && !o.RateLimited {
		for _, r := range items {
			q.p.added(r)
		}
	}
	if q.pq != nil {
		q.pq.AddWithOpts(o, items...)
		return
	}
	for _, r := range items {
		switch {
		case o.RateLimited:
			q.TypedRateLimitingInterface.AddRateLimited(r)
		case o.After > 0:
			q.TypedRateLimitingInterface.AddAfter(r, o.After)
		default:
			q.TypedRateLimitingInterface.Add(r)
		}
	}
}

func (q progressQueue) Get() (reconcile.Request, bool) {
	r, shutdown := q.TypedRateLimitingInterface.Get()
	if !shutdown {
		q.p.started(r)
	}
	return r, shutdown
}

func (q progressQueue) GetWithPriority() (reconcile.Request, int, bool) {
	if q.pq == nil {
		r, shutdown := q.Get()
		return r, 0, shutdown
	}
	r, prio, shutdown := q.pq.GetWithPriority()
	if !shutdown {
		q.p.started(r)
	}
	return r, prio, shutdown
}

func (q progressQueue) Done(r reconcile.Request) {
	q.p.done(r)
	q.TypedRateLimitingInterface.Done(r)
}
