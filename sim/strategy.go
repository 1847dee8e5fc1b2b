package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
	"github.com/restartsim/restartsim/sim/workload"
)

// strategyOutcome is what one strategy's (one repeat's) run measured.
type strategyOutcome struct {
	name       string
	out        *measure.Output
	invariants results.Invariants
	events     []results.Event
	k8sVersion string
	// fleetSetup is the wall time of this run's own fleet creation (zero with a snapshot).
	fleetSetup time.Duration
	// input is what the measurements read.
	input *measure.Input
}

// strategyRun is one strategy's run on a fresh environment, fakeaws and fleet. Each step starts
// what the next needs and registers how to stop it; the lifecycle stops everything, last started
// first, however far the run got.
type strategyRun struct {
	o     Options
	sc    *scenario.Scenario
	strat scenario.Strategy
	ext   *scenario.External // the arm's external controller; nil runs the reference controller
	// conv is the arm whose controller converges the fleet until the first restart starts this
	// arm's (convergeWith; nil: this arm's own).
	conv  *arm
	seed  int64
	dir   string
	snap  *fleetSnapshot // with a snapshot, the environment and fakeaws start from copies of its fleet
	log   logr.Logger
	stops lifecycle

	env        *env.Env
	client     client.Client
	cloud      backend.Backend
	labels     map[string]string
	spec       workload.Spec
	fleet      *workload.FleetPlan
	simulator  *workload.Simulator
	fleetSetup time.Duration
	ctrlLog    logr.Logger
	leaseNS    string
	ctrls      sut.Controllers
	// runCtx ends, with the exit as its cause, when an external controller exits on its own.
	runCtx          context.Context
	stopControllers func()
	// memory reads the controller instances' memory from their start to the measured phase's end.
	memory    *sut.Scrape[sut.MemoryPoint]
	watch     *observe.Watch
	stopWatch func()
	checker   *observe.Checker
	removed   *observe.Removed
	// warmup bounds the warm-up's waits.
	warmup time.Duration
	// objects are the scenario's object groups (nil: none).
	objects *objectGroups
}

// lifecycle stops what a run started, last started first.
type lifecycle []func()

func (l *lifecycle) add(stop func()) { *l = append(*l, stop) }

func (l *lifecycle) stop() {
	for i := len(*l) - 1; i >= 0; i-- {
		(*l)[i]()
	}
	*l = nil
}

// runStrategy runs one arm (a strategy, and its external controller if any) with seed into dir;
// with snap, the environment and fakeaws start from copies of the snapshot's fleet instead of
// creating one.
func runStrategy(ctx context.Context, o Options, sc *scenario.Scenario, a arm, seed int64, dir string, snap *fleetSnapshot) (*strategyOutcome, error) {
	r := &strategyRun{o: o, sc: sc, strat: a.st, ext: a.ext, conv: a.converge, seed: seed, dir: dir, snap: snap, log: o.Logger.WithValues("strategy", a.st.Name)}
	defer r.stops.stop()
	for _, step := range []func(context.Context) error{r.startCluster, r.startAWS, r.startFleet, r.startController, r.warmUp} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	m, err := r.measure(ctx)
	if err != nil {
		return nil, err
	}
	return r.collect(m)
}

// resumes reports whether the reference controller runs with the resume fast path.
func (r *strategyRun) resumes() bool { return resumes(arm{st: r.strat, ext: r.ext}) }

// resumes reports whether a runs the reference controller with the resume fast path.
func resumes(a arm) bool { return a.ext == nil && ptr.Deref(a.st.Resume, false) }

// warmArm is the arm whose controller runs until the first restart: the converging one, else this.
func (r *strategyRun) warmArm() arm {
	if r.conv != nil {
		return *r.conv
	}
	return arm{st: r.strat, ext: r.ext}
}

// startCluster starts the Kubernetes side: the controller's log file, the API server (on a copy
// of the snapshot's etcd) and the harness's client.
func (r *strategyRun) startCluster(ctx context.Context) error {
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	ctrlLog, closeLog, err := fileLogger(filepath.Join(r.dir, "controller.log"))
	if err != nil {
		return err
	}
	r.ctrlLog = ctrlLog
	r.stops.add(closeLog)
	etcdDir := ""
	if r.snap != nil {
		etcdDir = filepath.Join(r.dir, "etcd")
		if err := env.CopyDataDir(r.snap.etcdDir, etcdDir); err != nil {
			return err
		}
		r.stops.add(func() { _ = os.RemoveAll(etcdDir) }) // once the API server has stopped
	}
	e, err := startEnv(ctx, r.o, r.sc, filepath.Join(r.dir, "env"), etcdDir, 0, r.log)
	if err != nil {
		return err
	}
	r.env = e
	r.stops.add(func() { stopEnv(e, r.log) })
	r.client, err = client.New(e.Config, client.Options{Scheme: env.Scheme})
	return err
}

// startAWS starts fakeaws (or connects to the remote one), from the snapshot's resources when set.
func (r *strategyRun) startAWS(ctx context.Context) error {
	var from *fakeaws.Snapshot
	if r.snap != nil {
		from = r.snap.aws
	}
	cloud, err := startAWS(ctx, r.o, r.sc, r.seed, r.dir, from)
	if err != nil {
		return err
	}
	r.cloud = cloud
	r.stops.add(func() { _ = cloud.Close() })
	return nil
}

// startFleet starts the simulated kubelet and endpoint controller, and creates (or adopts) the fleet.
func (r *strategyRun) startFleet(ctx context.Context) error {
	o := r.o
	r.labels = runLabels(r.sc, r.seed)
	if o.cluster != nil {
		r.labels = o.cluster.labels(r.sc)
	}
	var err error
	if r.spec, r.fleet, err = planFleet(r.sc, r.seed, o.cluster); err != nil {
		return err
	}
	simulator, stopSim, err := startSimulator(ctx, r.env, r.labels, o.cluster != nil && o.cluster.clusterSlices, r.log)
	if err != nil {
		return err
	}
	r.simulator = simulator
	r.stops.add(stopSim)
	if o.cluster != nil {
		// Registered before the fleet exists, so an interrupted creation (SIGINT) is cleaned up too;
		// it runs after the controllers are stopped, and stops the simulated kubelet first, whose
		// heartbeats would otherwise renew the deleted node Leases.
		r.stops.add(func() {
			r.fleet.Close()
			stopSim()
			if r.objects != nil {
				if err := releaseObjects(ctx, r.client, r.objects.deps.Fleet, r.fleet.Namespaces); err != nil {
					r.log.Info("releasing the object groups' finalizers failed", "error", err.Error())
				}
			}
			cleanupCluster(ctx, r.client, r.labels, o.cluster.controllerManager, r.log)
		})
	}
	if err := r.createFleet(ctx); err != nil {
		return err
	}
	r.stops.add(r.fleet.Close)
	if err := r.createObjects(ctx); err != nil {
		return err
	}
	return waitSynced(ctx, simulator)
}

func (r *strategyRun) createFleet(ctx context.Context) error {
	fopts := fleetOptions(r.o, r.sc, r.client, r.cloud, r.labels, r.log)
	if r.snap != nil {
		if err := r.fleet.Adopt(ctx, r.snap.fleet, fopts); err != nil {
			return fmt.Errorf("adopting the snapshot's fleet: %w", err)
		}
		r.log.Info("fleet restored from the snapshot", "tgbs", r.spec.TGBs)
		return nil
	}
	r.log.Info("creating the fleet", "tgbs", r.spec.TGBs)
	stats, err := r.fleet.Create(ctx, fopts)
	if err != nil {
		return fmt.Errorf("creating the fleet: %w", err)
	}
	r.fleetSetup = stats.Elapsed
	r.log.Info("fleet created", "objects", stats.Objects, "elapsed", stats.Elapsed.Round(time.Millisecond))
	return nil
}

// startController starts the controller under test and, while it starts, the harness's own watch
// of the run's objects (each lists every object).
func (r *strategyRun) startController(ctx context.Context) error {
	if err := r.createLeaseNamespace(ctx); err != nil {
		return err
	}
	cfg := sut.Config{Env: r.env, AWS: r.cloud, Creds: runCreds(r.o, r.sc), Scenario: r.sc, Strategy: r.strat,
		External: r.ext, Namespaces: r.fleet.Namespaces, LeaseNamespace: r.leaseNS, Seed: r.seed, Dir: r.dir,
		LoadBalancers: r.hasLoadBalancers(), ClusterName: r.spec.ClusterName,
		Logger: r.log, ControllerLog: r.ctrlLog, Setup: r.o.ManagerSetups[r.strat.Name], NewScheme: r.o.NewScheme}
	var ctrls sut.Controllers
	var err error
	if r.conv == nil {
		ctrls, err = sut.New(cfg)
	} else {
		conv := cfg
		conv.Strategy, conv.External = r.conv.st, r.conv.ext
		conv.Setup = r.o.ManagerSetups[r.conv.st.Name]
		conv.Dir = filepath.Join(r.dir, "converge-"+r.conv.st.Name)
		conv.Logger = r.log.WithValues("converge", r.conv.st.Name)
		conv.ControllerLog = r.ctrlLog.WithValues("converge", r.conv.st.Name)
		ctrls, err = sut.NewHandover(conv, cfg)
	}
	if err != nil {
		return err
	}
	r.ctrls = ctrls
	watchCtx, stopWatch := context.WithCancel(ctx)
	r.stopWatch = stopWatch
	r.stops.add(stopWatch)
	watched := make(chan error, 1)
	go func() {
		var err error
		r.watch, err = observe.StartWatch(watchCtx, r.env.Config, r.labels, r.simulator, r.loadBalancerSide())
		watched <- err
	}()
	ctrlCtx, stopCtrls := context.WithCancel(ctx)
	r.stops.add(stopCtrls)
	// Memory is read from each instance's start: a controller's peak may come while it first syncs.
	r.memory = sut.StartMemoryScrape(ctrls)
	r.stops.add(func() { r.memory.Stop() })
	if err := ctrls.Start(ctrlCtx); err != nil {
		ctrls.Stop()
		return fmt.Errorf("starting the controller: %w", err)
	}
	// From here an external controller that exits on its own ends the run at once (runCtx's
	// cause), instead of being noticed as a warm-up or steady-state timeout.
	runCtx, exited := sut.WatchExit(ctx, ctrls)
	r.runCtx = runCtx
	r.stops.add(exited)
	r.stopControllers = sync.OnceFunc(ctrls.Stop)
	r.stops.add(r.stopControllers)
	if err := <-watched; err != nil {
		return err
	}
	r.removed = &observe.Removed{}
	r.checker = observe.NewChecker(r.watch, r.cloud, r.removed)
	if r.hasLoadBalancers() {
		r.checker.CheckLoadBalancers(r.spec.ClusterName, workload.IngressClassName)
	}
	return r.watchObjects(watchCtx)
}

// hasLoadBalancers reports whether the fleet has a load balancer side (Ingresses or Services of
// type LoadBalancer), which the reference controller's load balancer reconcilers serve.
func (r *strategyRun) hasLoadBalancers() bool {
	return r.spec.Ingresses.HasLoadBalancers()
}

func (r *strategyRun) loadBalancerSide() *observe.LoadBalancerSide {
	if !r.hasLoadBalancers() {
		return nil
	}
	return &observe.LoadBalancerSide{Namespaces: r.fleet.Namespaces}
}

// createLeaseNamespace creates the namespace of the leader-election Lease and of the resume
// watermark (controller.Options.ResumeNamespace's default), when the controller uses either.
func (r *strategyRun) createLeaseNamespace(ctx context.Context) error {
	needs := func(a arm) bool {
		return a.st.ElectsLeader(r.sc.Controller.Replicas) || a.ext != nil || a.st.Binary != "" || resumes(a)
	}
	if !needs(arm{st: r.strat, ext: r.ext}) && (r.conv == nil || !needs(*r.conv)) {
		return nil
	}
	r.leaseNS = trunc(r.fleet.Namespaces[0], 50) + "-leader"
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.leaseNS, Labels: r.labels}}
	if err := r.client.Create(ctx, ns); err != nil {
		return fmt.Errorf("creating the lease namespace: %w", err)
	}
	return nil
}

// warmUp waits until the controller has converged the fleet and settled, so the measured phase
// starts from a steady state.
func (r *strategyRun) warmUp(ctx context.Context) error {
	r.log.Info("warming up until AWS holds every target and every object is ready", "profile", r.sc.AWS.WarmupProfile)
	warm := r.warmArm()
	var unsettled func() int // bindings the controller still has to checkpoint
	if warm.ext == nil && warm.st.InProcess == nil && warm.st.Checkpoint != scenario.CheckpointNone {
		unsettled = r.watch.WithoutCheckpoint
	}
	r.warmup = sut.WarmupTimeout(r.spec.TGBs, sut.RegistrationRate(r.sc, warm.st, warm.ext), r.sc.TimeScale) + objectsWarmup(r.objectCount())
	warming := startConvergence(r.o.Progress, "warming up: the controller converges the fleet", r.checker)
	defer warming.End()
	if err := r.createLaterObjects(r.runCtx); err != nil {
		return sut.StartFailure(r.runCtx, err)
	}
	if err := observe.WarmUp(r.runCtx, r.checker, r.warmup, unsettled); err != nil {
		return sut.StartFailure(r.runCtx, err)
	}
	if err := r.ctrls.AwaitSettled(r.runCtx, r.warmup); err != nil {
		return sut.StartFailure(r.runCtx, err)
	}
	// Readiness gates turn True last; the simulated kubelet then marks their pods Ready and the
	// endpoint controller rewrites their slices. The measured phase starts once that has settled.
	observe.WaitQuiet(r.runCtx, r.simulator, r.warmup, r.log)
	warming.End()
	if err := context.Cause(r.runCtx); err != nil && ctx.Err() == nil {
		return sut.StartFailure(r.runCtx, err)
	}
	if !resumes(warm) {
		return nil
	}
	// A crash right away would leave the new instance a watermark from before the warm-up's
	// last reconciles, and its fast path would redo them: wait for one that covers them.
	rv, err := controller.CurrentResourceVersion(ctx, r.client, r.leaseNS)
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return observe.WaitWatermark(ctx, r.client, r.leaseNS, time.Now(), rv, r.warmup)
}
