package sut

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// ManagerSetup registers a controller's reconcilers (and anything else it runs) with the manager
// the harness built for one replica of an inProcess strategy. ctx ends when the run does.
type ManagerSetup func(ctx context.Context, mgr manager.Manager, env ManagerEnv) error

// ManagerEnv is what a replica's setup gets besides its manager: where AWS is for this replica.
type ManagerEnv struct {
	// AWS has the region, static credentials and BaseEndpoint set; clients made from it
	// (elasticloadbalancingv2.NewFromConfig(env.AWS)) talk to the run's fakeaws.
	AWS aws.Config
	// Endpoint is this replica's fakeaws URL: a proxy that a crash of the replica cuts, so
	// nothing the crashed instance still has in flight reaches AWS.
	Endpoint        string
	Region          string
	AccessKeyID     string
	SecretAccessKey string
	// VpcID is fakeaws's default VPC.
	VpcID string
	// Namespaces are the fleet's namespaces.
	Namespaces []string
	// Replica numbers the instances from 0, in the order they started.
	Replica int
}

// ReplicaConfig is what every in-process replica runs with, whoever wrote its reconcilers.
type ReplicaConfig struct {
	Kube     *rest.Config
	AWS      backend.Backend
	Creds    backend.Creds
	Strategy scenario.Strategy
	// Clock scales the leader-election timings (the reference controller's timers too, not a
	// test's own controller's) into wall time.
	Clock      scenario.Clock
	Replicas   int
	Namespaces []string
	// LeaseNamespace holds the leader-election Lease (and the reference controller's resume
	// watermark).
	LeaseNamespace string
	Logger         logr.Logger
}

// ManagedConfig is what the replicas of an inProcess strategy run with.
type ManagedConfig struct {
	ReplicaConfig
	// Setup registers the test's reconcilers with each replica's manager. Required.
	Setup ManagerSetup
	// NewScheme returns each replica's scheme, which its setup may add its own types to. Default:
	// client-go's types.
	NewScheme func() *runtime.Scheme
	// Dir is named in the error of a replica that ended on its own (its log is Dir/controller.log).
	Dir string
}

// managedReplica is one manager of an inProcess strategy.
type managedReplica struct {
	replicaCore
	// informers counts the informers the manager's controllers asked the cache for.
	informers *informerCount
	sig       *replicaSignals
}

// managed runs an inProcess strategy: one controller-runtime manager per replica, built by the
// harness and filled by the test's setup.
type managed struct {
	c     ManagedConfig
	vpcID string

	// replicaPool's mu also guards all.
	replicaPool[*managedReplica]
	all []*managedReplica // every replica started, stopped ones included
}

// NewManaged returns (not yet started) replicas of an inProcess strategy.
func NewManaged(c ManagedConfig) (Controllers, error) {
	if c.Setup == nil {
		return nil, runerr.BadInput(fmt.Errorf("strategy %s: inProcess needs a manager setup, which only a Go test gives (package restartsimtest)", c.Strategy.Name))
	}
	if c.NewScheme == nil {
		c.NewScheme = defaultScheme
	}
	vpc, _ := c.AWS.DefaultVPCID()
	return &managed{c: c, vpcID: vpc, replicaPool: replicaPool[*managedReplica]{exited: make(chan struct{})}}, nil
}

func defaultScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	return s
}

// managerOptions are the harness's options for replica r: leader election on the strategy's
// Lease with its timings scaled, no metrics server (the harness reads controller-runtime's
// registry in process), health probes on a free loopback port, and controller names shared by
// the replicas (every replica registers the same controllers in one process).
func (m *managed) managerOptions(r *managedReplica) manager.Options {
	st := m.c.Strategy
	ld, rd, rp := st.LeaseTimings()
	scaled := func(d time.Duration) *time.Duration {
		return ptr.To(max(50*time.Millisecond, m.c.Clock.Wall(d)))
	}
	return manager.Options{
		Scheme:                        m.c.NewScheme(),
		Logger:                        m.c.Logger.WithValues("replica", r.id),
		LeaderElection:                st.ElectsLeader(m.c.Replicas),
		LeaderElectionID:              st.InProcess.LeaderElectionID,
		LeaderElectionNamespace:       m.c.LeaseNamespace,
		LeaderElectionReleaseOnCancel: ptr.Deref(st.ReleaseOnCancel, true),
		LeaseDuration:                 scaled(ld),
		RenewDeadline:                 scaled(rd),
		RetryPeriod:                   scaled(rp),
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "127.0.0.1:0",
		GracefulShutdownTimeout:       ptr.To(5 * time.Second),
		Controller:                    config.Controller{SkipNameValidation: ptr.To(true)},
		NewCache: func(cfg *rest.Config, o cache.Options) (cache.Cache, error) {
			c, err := cache.New(cfg, o)
			if err != nil {
				return nil, err
			}
			return &countingCache{Cache: c, n: r.informers}, nil
		},
	}
}

func (m *managed) env(r *managedReplica) ManagerEnv {
	cr := m.c.Creds
	return ManagerEnv{
		AWS: aws.Config{Region: cr.Region, BaseEndpoint: aws.String(r.gate.URL),
			Credentials: credentials.NewStaticCredentialsProvider(cr.AccessKey, cr.SecretKey, "")},
		Endpoint: r.gate.URL, Region: cr.Region, AccessKeyID: cr.AccessKey, SecretAccessKey: cr.SecretKey,
		VpcID: m.vpcID, Namespaces: m.c.Namespaces, Replica: r.id,
	}
}

func (m *managed) startReplica(ctx context.Context) error {
	id := m.nextID()
	g, err := backend.NewCutoff(m.c.AWS)
	if err != nil {
		return err
	}
	r := &managedReplica{replicaCore: replicaCore{id: id, gate: g, kill: &killSwitch{}, done: make(chan struct{}), started: time.Now()},
		informers: &informerCount{}, sig: &replicaSignals{}}
	cfg := rest.CopyConfig(m.c.Kube)
	cfg.Wrap(r.kill.wrap)
	mgr, err := manager.New(cfg, m.managerOptions(r))
	if err != nil {
		g.Cut()
		return fmt.Errorf("replica %d: manager: %w", id, err)
	}
	rctx, cancel := context.WithCancel(ctx)
	if err := m.c.Setup(rctx, mgr, m.env(r)); err != nil {
		cancel()
		g.Cut()
		return runerr.BadInput(fmt.Errorf("strategy %s: replica %d: setup: %w", m.c.Strategy.Name, id, err))
	}
	r.mgr, r.elected, r.cancel = mgr, mgr.Elected(), cancel
	go m.observe(rctx, r, mgr)
	go func() {
		defer close(r.done)
		err := mgr.Start(rctx)
		if rctx.Err() == nil {
			m.ended(r, err)
		}
	}()
	m.mu.Lock()
	m.reps = append(m.reps, r)
	m.all = append(m.all, r)
	m.mu.Unlock()
	return nil
}

// ended notes a replica whose manager returned while the harness still wanted it running.
func (m *managed) ended(r *managedReplica, err error) {
	status := "returned nil"
	if err != nil {
		status = err.Error()
	}
	m.exitOnce.Do(func() {
		m.exitErr = &runerr.ControllerExitError{What: "in-process manager", Replica: r.id, Status: "Start " + status,
			Log: filepath.Join(m.c.Dir, "controller.log"), After: time.Since(r.started).Round(time.Millisecond).String()}
		close(m.exited)
	})
}

func (m *managed) Start(ctx context.Context) error {
	for i := 0; i < m.c.Replicas; i++ {
		if err := m.startReplica(ctx); err != nil {
			return err
		}
	}
	_, err := m.waitLeader(ctx, nil)
	return err
}

// stop cancels a replica's manager and waits for it to return; its Lease is released as
// LeaderElectionReleaseOnCancel says.
func (m *managed) stop(r *managedReplica) {
	m.remove(r)
	r.cancel()
	m.release(r)
}

// release waits until a cancelled replica's manager returned, then drops it: the replica is kept
// for its identity and signals, its manager holds the caches (every object it watched).
func (m *managed) release(r *managedReplica) {
	<-r.done
	r.gate.Cut()
	m.mu.Lock()
	r.mgr = nil
	m.mu.Unlock()
}

// StopLeader implements Controllers. A crash cuts the leader's Kubernetes and AWS access first,
// so it neither releases its Lease nor lands anything it still had in flight, cancels its
// manager and abandons it (a crashed process does not wait for its goroutines); graceful modes
// cancel it and wait until its manager returned.
func (m *managed) StopLeader(_ context.Context, mode string) (time.Time, error) {
	old, err := m.stopping(nil)
	if err != nil {
		return time.Time{}, err
	}
	stopped := time.Now()
	if mode == scenario.RestartCrash {
		m.cutOff(old)
		old.cancel()
		go m.release(old)
		return stopped, nil
	}
	m.stop(old)
	return stopped, nil
}

// StartReplacement implements Controllers.
func (m *managed) StartReplacement(ctx context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	return m.startReplacement(ctx, m.startReplica)
}

// Stop implements Controllers: every running replica, gracefully.
func (m *managed) Stop() {
	for _, r := range m.running() {
		m.stop(r)
	}
}

// ElectsLeader implements Controllers.
func (m *managed) ElectsLeader() bool { return m.c.Strategy.ElectsLeader(m.c.Replicas) }

// Exited implements Controllers: closed once a manager returned while the harness wanted it running.
func (m *managed) Exited() <-chan struct{} { return m.exited }

// ExitErr implements Controllers.
func (m *managed) ExitErr() error {
	select {
	case <-m.exited:
		return m.exitErr
	default:
		return nil
	}
}

// startTakeover implements takeoverStarter.
func (m *managed) startTakeover(ctx context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	return m.StartReplacement(ctx)
}
