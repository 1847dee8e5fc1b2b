package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/actions"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/record"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/sut"
	"github.com/restartsim/restartsim/sim/workload"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// startCluster starts the Kubernetes side: the controller's log file, the API server (on a copy
// of the snapshot's etcd) and the harness's client.
func (r *strategyRun) startCluster(ctx context.Context) (*clusterPhase, error) {
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	ctrlLog, closeLog, err := fileLogger(filepath.Join(r.dir, "controller.log"))
	if err != nil {
		return nil, err
	}
	r.stops.add(closeLog)
	etcdDir := ""
	if r.snap != nil {
		etcdDir = filepath.Join(r.dir, "etcd")
		if err := env.CopyDataDir(r.snap.etcdDir, etcdDir); err != nil {
			return nil, err
		}
		r.stops.add(func() { _ = os.RemoveAll(etcdDir) }) // once the API server has stopped
	}
	e, err := startEnv(ctx, r.o, r.sc, filepath.Join(r.dir, "env"), etcdDir, 0, r.log)
	if err != nil {
		return nil, err
	}
	r.stops.add(func() { stopEnv(e, r.log) })
	c, err := client.New(e.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		return nil, err
	}
	return &clusterPhase{env: e, client: c, ctrlLog: ctrlLog}, nil
}

// startAWS starts fakeaws (or connects to the remote one), from the snapshot's resources when set.
func (r *strategyRun) startAWS(ctx context.Context) (backend.Backend, error) {
	var from *fakeaws.Snapshot
	if r.snap != nil {
		from = r.snap.aws
	}
	cloud, err := startAWS(ctx, r.o, r.sc, r.seed, r.dir, from)
	if err != nil {
		return nil, err
	}
	r.stops.add(func() { _ = cloud.Close() })
	return cloud, nil
}

// startFleet starts the simulated kubelet and endpoint controller, and creates (or adopts) the fleet.
func (r *strategyRun) startFleet(ctx context.Context) (*fleetPhase, error) {
	f := &fleetPhase{labels: runLabels(r.sc, r.seed), spec: r.sc.Fleet.WorkloadSpec()}
	if r.cluster != nil {
		f.labels, f.spec = r.cluster.labels(r.sc), r.cluster.fleetSpec(r.sc)
	}
	if err := seedAccount(r.cloud, &r.sc.AWS, r.env, f.spec.ClusterName); err != nil {
		return nil, err
	}
	var err error
	if f.fleet, err = planFleet(f.spec, r.seed); err != nil {
		return nil, err
	}
	simulator, stopSim, err := startSimulator(ctx, r.env, f.labels, r.cluster != nil && r.cluster.clusterSlices, r.log)
	if err != nil {
		return nil, err
	}
	f.simulator = simulator
	r.stops.add(stopSim)
	r.startInstanceNodes(ctx)
	if r.cluster != nil {
		// Registered before the fleet exists, so an interrupted creation (SIGINT) is cleaned up too;
		// it runs after the controllers are stopped, and stops the simulated kubelet first, whose
		// heartbeats would otherwise renew the deleted node Leases.
		r.stops.add(func() {
			f.fleet.Close()
			stopSim()
			if f.objects != nil {
				if err := releaseObjects(ctx, r.client, f.objects.Fleet, f.fleet.Namespaces); err != nil {
					r.log.Info("releasing the object groups' finalizers failed", "error", err.Error())
				}
			}
			cleanupCluster(ctx, r.client, f.labels, r.cluster.controllerManager, r.log)
		})
	}
	if f.fleetSetup, err = r.createFleet(ctx, f); err != nil {
		return nil, err
	}
	r.stops.add(f.fleet.Close)
	if f.objects, err = r.createObjects(ctx, f); err != nil {
		return nil, err
	}
	if err := waitSynced(ctx, simulator); err != nil {
		return nil, err
	}
	return f, nil
}

// createFleet creates f's fleet, or adopts the snapshot's, and returns the creation's wall time.
func (r *strategyRun) createFleet(ctx context.Context, f *fleetPhase) (time.Duration, error) {
	fopts := fleetOptions(r.o, r.sc, r.client, r.cloud, f.labels, r.log)
	if r.snap != nil {
		if err := f.fleet.Adopt(ctx, r.snap.fleet, fopts); err != nil {
			return 0, fmt.Errorf("adopting the snapshot's fleet: %w", err)
		}
		r.log.Info("fleet restored from the snapshot", "tgbs", f.spec.TGBs)
		return 0, nil
	}
	r.log.Info("creating the fleet", "tgbs", f.spec.TGBs)
	stats, err := f.fleet.Create(ctx, fopts)
	if err != nil {
		return 0, fmt.Errorf("creating the fleet: %w", err)
	}
	r.log.Info("fleet created", "objects", stats.Objects, "elapsed", stats.Elapsed.Round(time.Millisecond))
	return stats.Elapsed, nil
}

// startController starts the controller under test and, while it starts, the harness's own watch
// of the run's objects (each lists every object).
func (r *strategyRun) startController(ctx context.Context) (*controllerPhase, error) {
	leaseNS, err := r.createLeaseNamespace(ctx)
	if err != nil {
		return nil, err
	}
	ctrls, err := r.newControllers(leaseNS)
	if err != nil {
		return nil, err
	}
	c := &controllerPhase{leaseNS: leaseNS, ctrls: ctrls}
	watchCtx, stopWatch := context.WithCancel(ctx)
	c.stopWatch = stopWatch
	r.stops.add(stopWatch)
	watched := make(chan error, 1)
	go func() {
		var err error
		c.watch, err = observe.StartWatch(watchCtx, r.env.Config, r.labels, r.simulator, r.loadBalancerSide())
		watched <- err
	}()
	ctrlCtx, stopCtrls := context.WithCancel(ctx)
	r.stops.add(stopCtrls)
	// Memory is read from each instance's start: a controller's peak may come while it first syncs.
	c.recorders = record.New(record.Sources{Controllers: ctrls, Clock: r.sc.Clock(), RunDir: r.dir, Parallel: r.o.Parallel})
	c.recorders.Start(record.AtControllerStart, time.Now())
	r.stops.add(c.recorders.Stop)
	if err := ctrls.Start(ctrlCtx); err != nil {
		ctrls.Stop()
		return nil, fmt.Errorf("starting the controller: %w", err)
	}
	// From here an external controller that exits on its own ends the run at once (runCtx's
	// cause), instead of being noticed as a warm-up or steady-state timeout.
	runCtx, exited := sut.WatchExit(ctx, ctrls)
	r.stops.add(exited)
	c.stopControllers = sync.OnceFunc(ctrls.Stop)
	r.stops.add(c.stopControllers)
	if err := <-watched; err != nil {
		return nil, err
	}
	c.removed = &observe.Removed{}
	c.checker = observe.NewChecker(c.watch, r.cloud, c.removed)
	if r.hasLoadBalancers() {
		c.checker.CheckLoadBalancers(r.spec.ClusterName, workload.IngressClassName)
	}
	if r.sc.Cluster.InstanceNodes != nil {
		// Instances join as Nodes: one that none names (nor a NodeClaim) is leaked capacity.
		c.checker.CheckInstances(r.client)
	}
	if c.objectsWatch, err = r.watchObjects(watchCtx, c.checker); err != nil {
		return nil, err
	}
	c.runCtx, c.progress = r.watchProgress(runCtx, c.objectsWatch)
	return c, nil
}

// newControllers makes the controller under test: this arm's, or the converging arm's handing over
// to it at the first restart.
func (r *strategyRun) newControllers(leaseNS string) (sut.Controllers, error) {
	cfg := sut.Config{Env: r.env, AWS: r.cloud, Creds: runCreds(r.o, r.sc), Scenario: r.sc, Strategy: r.strat,
		External: r.ext, Namespaces: r.fleet.Namespaces, LeaseNamespace: leaseNS, Seed: r.seed, Dir: r.dir,
		LoadBalancers: r.hasLoadBalancers(), ClusterName: r.spec.ClusterName,
		Logger: r.log, ControllerLog: r.ctrlLog, Setup: r.o.ManagerSetups[r.strat.Name], NewScheme: r.o.NewScheme}
	if r.conv == nil {
		return sut.New(cfg)
	}
	conv := cfg
	conv.Strategy, conv.External = r.conv.st, r.conv.ext
	conv.Setup = r.o.ManagerSetups[r.conv.st.Name]
	conv.Dir = filepath.Join(r.dir, "converge-"+r.conv.st.Name)
	conv.Logger = r.log.WithValues("converge", r.conv.st.Name)
	conv.ControllerLog = r.ctrlLog.WithValues("converge", r.conv.st.Name)
	return sut.NewHandover(conv, cfg)
}

// createObjects creates the groups that come after no other; the others wait for the controller to
// make the groups they come after ready (createLaterObjects, in the warm-up). A fleet snapshot
// holds its groups already (fleetSnapshot.objectsRunID).
func (r *strategyRun) createObjects(ctx context.Context, f *fleetPhase) (*actions.ObjectDeps, error) {
	c, err := r.sc.Objects()
	if err != nil {
		return nil, runerr.BadInput(err)
	}
	if c == nil {
		return nil, nil
	}
	aws, err := observe.AWSStateOf(r.cloud)
	if err != nil {
		return nil, runerr.BadInput(err)
	}
	runID := objectsRunID(fmt.Sprintf("%s/%d", r.dir, r.seed))
	if r.snap != nil {
		runID = r.snap.objectsRunID
	}
	objEnv, err := objectEnv(r.cloud, aws, r.sc, f.spec.ClusterName, f.fleet.Namespaces, runID)
	if err != nil {
		return nil, err
	}
	deps := &actions.ObjectDeps{Fleet: c.Fleet, Churn: c.Churn, Env: objEnv, AWS: aws}
	if r.snap == nil {
		err = createFirstObjects(ctx, r.o, r.sc, r.client, c.Fleet, objEnv, r.log)
	}
	return deps, err
}

func (r *strategyRun) loadBalancerSide() *observe.LoadBalancerSide {
	if !r.hasLoadBalancers() {
		return nil
	}
	return &observe.LoadBalancerSide{Namespaces: r.fleet.Namespaces}
}

// createLeaseNamespace creates the namespace of the leader-election Lease and of the resume
// watermark (controller.Options.ResumeNamespace's default), when the controller uses either.
func (r *strategyRun) createLeaseNamespace(ctx context.Context) (string, error) {
	needs := func(a arm) bool {
		return a.st.ElectsLeader(r.sc.Controller.Replicas) || a.ext != nil || a.st.Binary != "" || resumes(a)
	}
	if !needs(arm{st: r.strat, ext: r.ext}) && (r.conv == nil || !needs(*r.conv)) {
		return "", nil
	}
	name := trunc(r.fleet.Namespaces[0], 50) + "-leader"
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: r.labels}}
	if err := r.client.Create(ctx, ns); err != nil {
		return "", fmt.Errorf("creating the lease namespace: %w", err)
	}
	return name, nil
}

// watchObjects starts the harness's watch of the groups' objects and has the checker hold every
// object to its group's conditions (nil: no groups).
func (r *strategyRun) watchObjects(ctx context.Context, checker *observe.Checker) (*observe.Objects, error) {
	if r.objects == nil {
		return nil, nil
	}
	w, err := observe.StartObjects(ctx, r.env.Config, r.objects.Fleet, r.objects.AWS, r.fleet.Namespaces)
	if err != nil {
		return nil, err
	}
	checker.CheckObjects(w)
	return w, nil
}

// watchProgress returns a context that ends, with a *observe.RefusedError or *observe.StuckError as
// its cause, once the controller makes no progress for a reason the harness can see.
func (r *strategyRun) watchProgress(runCtx context.Context, objs *observe.Objects) (context.Context, *progressWatch) {
	rctx, cancel := context.WithCancelCause(runCtx)
	p := &progressWatch{cloud: r.cloud, cancel: cancel, objs: objs,
		calls: &observe.Refusals{Window: refusalWindow, MinCalls: refusalMinCalls, Region: r.sc.AWS.Region},
		conds: &observe.Conditions{Window: refusalWindow}}
	if now, err := r.cloud.Now(); err == nil {
		p.calls.Start = now
	}
	if recent, err := r.cloud.CallsSince(0); err == nil && len(recent) > 0 {
		p.seq = int(recent[len(recent)-1].Seq)
	}
	done := make(chan struct{})
	go p.run(rctx, done)
	r.stops.add(func() { close(done); cancel(nil) })
	return rctx, p
}
