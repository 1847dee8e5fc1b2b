package sut

import (
	"context"
	"errors"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/sim/backend"
)

// replicaCore is what every in-process replica is: one controller-runtime manager with its own
// AWS endpoint and Kubernetes access, either of which a crash cuts.
type replicaCore struct {
	id int
	// mgr is nil once the replica stopped: a stopped replica is kept for its identity, and its
	// manager holds the caches (every object it watched).
	mgr     manager.Manager
	cancel  context.CancelFunc
	done    chan struct{}
	gate    *backend.Cutoff
	kill    *killSwitch
	elected <-chan struct{}
	started time.Time
}

func (c *replicaCore) core() *replicaCore { return c }

// poolReplica is a replica type a replicaPool holds: a pointer to a struct that embeds replicaCore.
type poolReplica interface {
	comparable
	core() *replicaCore
}

// replicaPool is the running replicas of an in-process controller, in start order, and what a
// restart needs of them: who leads, the leader it stopped, and the replica that took over.
type replicaPool[R poolReplica] struct {
	// mu guards the pool and the owner's own records of its replicas.
	mu   sync.Mutex
	reps []R
	// stopped is the last leader StopLeader stopped.
	stopped R
	next    int
	// exited closes once a replica's manager ended without the harness stopping it (nil: a replica
	// never ends on its own); exitErr says how.
	exited   chan struct{}
	exitOnce sync.Once
	exitErr  error
	// takeover is the replica that led after the first restart.
	takeover takeoverOnce
}

// nextID numbers a new replica.
func (p *replicaPool[R]) nextID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := p.next
	p.next++
	return id
}

// numberFrom implements takeoverStarter.
func (p *replicaPool[R]) numberFrom(first int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next = first
}

// leaderExcept is the running replica other than except that leads (the zero R: none).
func (p *replicaPool[R]) leaderExcept(except R) R {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.reps {
		if r == except {
			continue
		}
		select {
		case <-r.core().elected:
			return r
		default:
		}
	}
	var none R
	return none
}

// leader is the running replica that leads (the zero R: none).
func (p *replicaPool[R]) leader() R {
	var none R
	return p.leaderExcept(none)
}

// waitLeader waits until a replica other than except leads (or one ended on its own).
func (p *replicaPool[R]) waitLeader(ctx context.Context, except R) (R, error) {
	var none R
	for {
		if l := p.leaderExcept(except); l != none {
			return l, nil
		}
		select {
		case <-ctx.Done():
			return none, ctx.Err()
		case <-p.exited:
			return none, p.exitErr
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// remove drops r from the running replicas.
func (p *replicaPool[R]) remove(r R) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.reps {
		if x == r {
			p.reps = append(p.reps[:i], p.reps[i+1:]...)
			return
		}
	}
}

// stopping is the leader StopLeader is about to stop, noted as the stopped one; restarted, when
// not nil, is set under the same lock (the owner's record that a restart began).
func (p *replicaPool[R]) stopping(restarted *bool) (R, error) {
	old := p.leader()
	var none R
	if old == none {
		return none, errors.New("no leading controller instance to restart")
	}
	p.mu.Lock()
	if restarted != nil {
		*restarted = true
	}
	p.stopped = old
	p.mu.Unlock()
	return old, nil
}

// cutOff is a crash's first step: r's Kubernetes and AWS access end at once, so it neither
// releases its Lease nor lands anything it still had in flight, and it leaves the running replicas.
func (p *replicaPool[R]) cutOff(r R) {
	c := r.core()
	c.kill.dead.Store(true)
	c.gate.Cut()
	p.remove(r)
}

// running is a copy of the running replicas.
func (p *replicaPool[R]) running() []R {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]R(nil), p.reps...)
}

// startReplacement starts a replica with start, in place of the leader StopLeader stopped; leads
// waits until a replica other than that one leads and notes it as the takeover.
func (p *replicaPool[R]) startReplacement(ctx context.Context, start func(context.Context) error) (time.Time, func(context.Context) (time.Time, error), error) {
	if err := start(ctx); err != nil {
		return time.Time{}, nil, err
	}
	started := time.Now()
	p.mu.Lock()
	old := p.stopped
	p.mu.Unlock()
	leads := func(ctx context.Context) (time.Time, error) {
		r, err := p.waitLeader(ctx, old)
		if err != nil {
			return time.Time{}, err
		}
		c := r.core()
		p.takeover.set(Takeover{Instance: c.id, Started: c.started})
		return time.Now(), nil
	}
	return started, leads, nil
}
