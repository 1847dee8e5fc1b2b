package sut

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/scenario"
)

// killSwitch cuts an in-process replica's Kubernetes access at once, as a process crash would.
type killSwitch struct{ dead atomic.Bool }

var errKilled = errors.New("controller instance was killed")

func (k *killSwitch) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if k.dead.Load() {
			return nil, errKilled
		}
		return rt.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type replica struct {
	replicaCore
	reg *prometheus.Registry
	// synced notes when the replica's controller logged that its caches synced.
	synced *firstSeen
}

// inProcess runs the reference controller as managers in this process, one per replica.
type inProcess struct {
	cfg        *rest.Config
	backend    backend.Backend
	strategy   scenario.Strategy
	clock      scenario.Clock
	replicas   int
	namespaces []string
	leaseNS    string
	creds      backend.Creds
	vpcID      string
	seed       uint64
	log        logr.Logger
	// warmupWorkers replaces the strategy's worker count until the first restart (0: never).
	warmupWorkers int
	// loadBalancers runs the Ingress and Service reconcilers, tagging stacks with clusterName.
	loadBalancers bool
	clusterName   string

	// replicaPool's mu also guards the fields below.
	replicaPool[*replica]
	restarted bool
	// regs are the metrics of every replica started, stopped ones included.
	regs []*prometheus.Registry
	// synced notes, for every replica started (stopped ones included), when it synced its caches.
	synced []*firstSeen
}

func (p *inProcess) startReplica(ctx context.Context) error {
	id := p.nextID()
	g, err := backend.NewCutoff(p.backend)
	if err != nil {
		return err
	}
	r := &replica{replicaCore: replicaCore{id: id, gate: g, kill: &killSwitch{}, done: make(chan struct{}), started: time.Now()},
		reg: prometheus.NewRegistry()}
	opts, err := p.options(id, g.URL, r.reg)
	if err != nil {
		g.Cut()
		return err
	}
	cfg := rest.CopyConfig(p.cfg)
	cfg.Wrap(r.kill.wrap)
	lease := func(d time.Duration) *time.Duration {
		return ptr.To(max(50*time.Millisecond, p.clock.Wall(d)))
	}
	var mgrLog logr.Logger
	mgrLog, r.synced = withLogMatch(p.log.WithValues("replica", id), cacheSyncedMessage)
	base := manager.Options{
		Scheme:                  env.Scheme,
		Logger:                  mgrLog,
		GracefulShutdownTimeout: ptr.To(5 * time.Second),
		LeaseDuration:           lease(15 * time.Second),
		RenewDeadline:           lease(10 * time.Second),
		RetryPeriod:             lease(2 * time.Second),
	}
	mgr, err := manager.New(cfg, controller.ManagerOptions(opts, base))
	if err != nil {
		g.Cut()
		return fmt.Errorf("replica %d: manager: %w", id, err)
	}
	if _, err := controller.New(mgr, opts); err != nil {
		g.Cut()
		return fmt.Errorf("replica %d: controller: %w", id, err)
	}
	r.mgr, r.elected = mgr, mgr.Elected()
	rctx, cancel := context.WithCancel(ctx)
	r.cancel = cancel
	go func() {
		defer close(r.done)
		if err := mgr.Start(rctx); err != nil && !errors.Is(err, context.Canceled) {
			p.log.V(1).Info("replica stopped", "replica", id, "err", err)
		}
	}()
	p.mu.Lock()
	p.reps = append(p.reps, r)
	p.regs = append(p.regs, r.reg)
	p.synced = append(p.synced, r.synced)
	p.mu.Unlock()
	return nil
}

func (p *inProcess) Start(ctx context.Context) error {
	for i := 0; i < p.replicas; i++ {
		if err := p.startReplica(ctx); err != nil {
			return err
		}
	}
	_, err := p.waitLeader(ctx, nil)
	return err
}

// stop ends a replica: crash cuts its AWS and Kubernetes access first, so nothing it still has in
// flight takes effect and its Lease is not released.
func (p *inProcess) stop(r *replica, crash bool) {
	if crash {
		r.kill.dead.Store(true)
		r.gate.Cut()
	}
	r.cancel()
	<-r.done
	r.gate.Cut()
	p.remove(r)
	p.mu.Lock()
	r.mgr = nil
	p.mu.Unlock()
}

func (p *inProcess) StopLeader(_ context.Context, mode string) (time.Time, error) {
	old, err := p.stopping(&p.restarted)
	if err != nil {
		return time.Time{}, err
	}
	stopped := time.Now()
	if mode == scenario.RestartCrash {
		p.cutOff(old)
		go p.stop(old, true) // a crashed process does not wait for its goroutines
	} else {
		p.stop(old, false)
	}
	return stopped, nil
}

// StartReplacement implements Controllers.
func (p *inProcess) StartReplacement(ctx context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	return p.startReplacement(ctx, p.startReplica)
}

func (p *inProcess) Stop() {
	for _, r := range p.running() {
		p.stop(r, false)
	}
}

func (p *inProcess) QueueDepth() map[string]float64 {
	out := map[string]float64{}
	if v, ok := gaugeSum(ctrlmetrics.Registry, "workqueue_depth", map[string]string{"name": controller.Name}); ok {
		out["workqueue_depth"] = v
	}
	if l := p.leader(); l != nil {
		if v, ok := gaugeSum(l.reg, "tgb_deferred_queue_depth", nil); ok {
			out["deferred_queue_depth"] = v
		}
	}
	return out
}

// InProcessConfig is what in-process replicas of the reference controller run with.
type InProcessConfig struct {
	ReplicaConfig
	Seed uint64
	// WarmupWorkers replaces the strategy's worker count until the first restart (0: never).
	WarmupWorkers int
	// LoadBalancers runs the controller's Ingress and Service reconcilers, tagging the stacks with
	// ClusterName (the fleet's).
	LoadBalancers bool
	ClusterName   string
}

// NewInProcess returns (not yet started) in-process replicas of the reference controller.
func NewInProcess(c InProcessConfig) Controllers { return newInProcess(c) }

func newInProcess(c InProcessConfig) *inProcess {
	vpc, _ := c.AWS.DefaultVPCID()
	return &inProcess{cfg: c.Kube, backend: c.AWS, strategy: c.Strategy, clock: c.Clock, replicas: c.Replicas,
		namespaces: c.Namespaces, leaseNS: c.LeaseNamespace, creds: c.Creds, vpcID: vpc, seed: c.Seed, log: c.Logger,
		warmupWorkers: c.WarmupWorkers, loadBalancers: c.LoadBalancers, clusterName: c.ClusterName}
}

// AwaitSettled implements Controllers: in-process replicas have settled once the fleet converged.
func (p *inProcess) AwaitSettled(context.Context, time.Duration) error { return nil }

// ElectsLeader implements Controllers.
func (p *inProcess) ElectsLeader() bool { return p.strategy.ElectsLeader(p.replicas) }

// Exited implements Controllers: an in-process replica never ends on its own.
func (p *inProcess) Exited() <-chan struct{} { return nil }

// ExitErr implements Controllers.
func (p *inProcess) ExitErr() error { return nil }

// Observed implements Controllers.
func (p *inProcess) Observed() Observations {
	return Observations{CachesSynced: p.cachesSynced(), ResumeReconciles: p.resumeReconciles(), Takeover: p.takeover.get(),
		Work: WorkSource{Source: results.WorkSourceReference, Controllers: []string{controller.Name}}}
}

// ScrapeWork implements WorkScraper: every running replica's own registry, where the reference
// controller times its reconciles (controller-runtime's metrics are per process, which the
// replicas share).
func (p *inProcess) ScrapeWork() []WorkPoint {
	var out []WorkPoint
	for _, r := range p.running() {
		at := time.Now()
		fams, err := r.reg.Gather()
		if err != nil {
			continue
		}
		mfs := make(map[string]*dto.MetricFamily, len(workFamilies))
		for _, mf := range fams {
			if slices.Contains(workFamilies, mf.GetName()) {
				mfs[mf.GetName()] = mf
			}
		}
		w := workPoint(mfs, referenceWork, nil)
		w.Instance, w.At = r.id, at
		out = append(out, w)
	}
	return out
}

// startTakeover implements takeoverStarter: the replica runs with the strategy's own workers, as
// controller.warmupWorkers were the converging controller's.
func (p *inProcess) startTakeover(ctx context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	p.mu.Lock()
	p.restarted = true
	p.mu.Unlock()
	return p.StartReplacement(ctx)
}
