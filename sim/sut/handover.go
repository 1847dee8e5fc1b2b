package sut

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/restartsim/restartsim/sim/runerr"
)

// handover is the controller under test of a strategy that converges with another's controller:
// converge runs from the start and converges the fleet; the first restart stops its instance and
// starts takeover's in its place, as an upgrade or a switch to another controller would. Later
// restarts restart takeover's instances as usual.
type handover struct {
	converge, takeover Controllers

	mu sync.Mutex
	// startCtx is Start's: takeover's instances live as long as converge's would have.
	startCtx context.Context
	// switched is set once the first restart stopped converge's instance; started once takeover's
	// first instance was started in its place.
	switched, started bool
	exited            chan struct{}
	done              chan struct{}
	stopOnce          sync.Once
}

// takeoverStarter is a controller under test that can start in place of another controller's
// stopped instance.
type takeoverStarter interface {
	// numberFrom numbers the instances from first on, after the other controller's.
	numberFrom(first int)
	// startTakeover starts the first instance, as the replacement of a restart whose stopped
	// instance was the other controller's; the instance lives until ctx ends (or Stop).
	startTakeover(ctx context.Context) (started time.Time, leads func(context.Context) (time.Time, error), err error)
}

// NewHandover returns the controller under test of a strategy with convergeWith, not yet started:
// converge's controller (the named strategy's) until the first restart, then takeover's (the
// strategy's own). Both run one instance; controller.warmupWorkers applies to converge's only.
func NewHandover(converge, takeover Config) (Controllers, error) {
	if n := converge.Scenario.Controller.Replicas; n != 1 {
		return nil, runerr.BadInput(fmt.Errorf("strategy %s: convergeWith needs controller.replicas 1, got %d", takeover.Strategy.Name, n))
	}
	first, err := New(converge)
	if err != nil {
		return nil, err
	}
	sc := *takeover.Scenario
	sc.Controller.WarmupWorkers = 0 // the warm-up is converge's
	takeover.Scenario = &sc
	second, err := New(takeover)
	if err != nil {
		return nil, err
	}
	ts, ok := second.(takeoverStarter)
	if !ok {
		return nil, fmt.Errorf("strategy %s: its controller (%T) cannot take over from another", takeover.Strategy.Name, second)
	}
	ts.numberFrom(sc.Controller.Replicas)
	return &handover{converge: first, takeover: second, exited: make(chan struct{}), done: make(chan struct{})}, nil
}

// current is the controller that runs now: converge's until the first restart stopped it.
func (h *handover) current() Controllers {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.switched {
		return h.takeover
	}
	return h.converge
}

// Start starts converge's instance.
func (h *handover) Start(ctx context.Context) error {
	h.mu.Lock()
	h.startCtx = ctx
	h.mu.Unlock()
	go h.watchExits()
	return h.converge.Start(ctx)
}

// watchExits closes exited once either controller's instance ended on its own.
func (h *handover) watchExits() {
	select {
	case <-h.converge.Exited():
	case <-h.takeover.Exited():
	case <-h.done:
		return
	}
	close(h.exited)
}

// AwaitSettled implements Controllers.
func (h *handover) AwaitSettled(ctx context.Context, timeout time.Duration) error {
	return h.current().AwaitSettled(ctx, timeout)
}

// StopLeader stops converge's instance at the first restart, takeover's leader afterwards.
func (h *handover) StopLeader(ctx context.Context, mode string) (time.Time, error) {
	h.mu.Lock()
	first := !h.switched
	h.mu.Unlock()
	if !first {
		return h.takeover.StopLeader(ctx, mode)
	}
	at, err := h.converge.StopLeader(ctx, mode)
	if err != nil {
		return at, err
	}
	h.mu.Lock()
	h.switched = true
	h.mu.Unlock()
	return at, nil
}

// StartReplacement starts takeover's first instance after the first restart, a replacement of
// takeover's afterwards.
func (h *handover) StartReplacement(ctx context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	h.mu.Lock()
	switched, first, startCtx := h.switched, !h.started, h.startCtx
	h.started = h.started || switched
	h.mu.Unlock()
	switch {
	case !switched:
		return time.Time{}, nil, errors.New("no stopped controller instance to replace")
	case !first:
		return h.takeover.StartReplacement(ctx)
	case startCtx == nil:
		return time.Time{}, nil, errors.New("the controllers were not started")
	}
	return h.takeover.(takeoverStarter).startTakeover(startCtx)
}

// Stop stops both controllers' instances.
func (h *handover) Stop() {
	h.stopOnce.Do(func() { close(h.done) })
	h.converge.Stop()
	h.takeover.Stop()
}

// QueueDepth implements Controllers.
func (h *handover) QueueDepth() map[string]float64 { return h.current().QueueDepth() }

// ElectsLeader reports whether takeover's instances acquire a Lease before they lead: the
// replacement of every restart is one of them.
func (h *handover) ElectsLeader() bool { return h.takeover.ElectsLeader() }

// Exited implements Controllers.
func (h *handover) Exited() <-chan struct{} { return h.exited }

// ExitErr implements Controllers.
func (h *handover) ExitErr() error {
	if err := h.converge.ExitErr(); err != nil {
		return err
	}
	return h.takeover.ExitErr()
}

// Observed is both controllers' observations: the instance that took over is takeover's first.
func (h *handover) Observed() Observations {
	c, t := h.converge.Observed(), h.takeover.Observed()
	t.CachesSynced = append(c.CachesSynced, t.CachesSynced...)
	t.AtStops = append(c.AtStops, t.AtStops...)
	t.ResumeReconciles += c.ResumeReconciles
	return t
}

// ScrapeWork implements WorkScraper.
func (h *handover) ScrapeWork() []WorkPoint { return h.current().ScrapeWork() }

// ScrapeMemory implements MemoryScraper.
func (h *handover) ScrapeMemory() []MemoryPoint { return h.current().ScrapeMemory() }
