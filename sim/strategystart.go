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
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/record"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
	"github.com/restartsim/restartsim/sim/workload"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

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
	r.labels, r.spec = runLabels(r.sc, r.seed), r.sc.Fleet.WorkloadSpec()
	if r.cluster != nil {
		r.labels, r.spec = r.cluster.labels(r.sc), r.cluster.fleetSpec(r.sc)
	}
	if err := seedAccount(r.cloud, &r.sc.AWS, r.env, r.spec.ClusterName); err != nil {
		return err
	}
	var err error
	if r.fleet, err = planFleet(r.spec, r.seed); err != nil {
		return err
	}
	simulator, stopSim, err := startSimulator(ctx, r.env, r.labels, r.cluster != nil && r.cluster.clusterSlices, r.log)
	if err != nil {
		return err
	}
	r.simulator = simulator
	r.stops.add(stopSim)
	r.startInstanceNodes(ctx)
	if r.cluster != nil {
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
			cleanupCluster(ctx, r.client, r.labels, r.cluster.controllerManager, r.log)
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
	r.recorders = record.New(record.Sources{Controllers: ctrls, TimeScale: r.sc.TimeScale, RunDir: r.dir, Parallel: r.o.Parallel})
	r.recorders.Start(record.AtControllerStart, time.Now())
	r.stops.add(r.recorders.Stop)
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
	if r.sc.Cluster.InstanceNodes != nil {
		// Instances join as Nodes: one that none names (nor a NodeClaim) is leaked capacity.
		r.checker.CheckInstances(r.client)
	}
	if err := r.watchObjects(watchCtx); err != nil {
		return err
	}
	r.watchProgress()
	return nil
}

// createObjects creates the groups that come after no other; the others wait for the controller to
// make the groups they come after ready (createLaterObjects, in the warm-up). A fleet snapshot
// holds its groups already (fleetSnapshot.objectsRunID).
func (r *strategyRun) createObjects(ctx context.Context) error {
	c, errs := scenario.CompileObjects(r.sc)
	if len(errs) > 0 {
		return runerr.BadInput(errs)
	}
	if c == nil {
		return nil
	}
	aws, err := observe.AWSStateOf(r.cloud)
	if err != nil {
		return runerr.BadInput(err)
	}
	runID := objectsRunID(fmt.Sprintf("%s/%d", r.dir, r.seed))
	if r.snap != nil {
		runID = r.snap.objectsRunID
	}
	objEnv, err := objectEnv(r.cloud, aws, r.sc, r.spec.ClusterName, r.fleet.Namespaces, runID)
	if err != nil {
		return err
	}
	r.objects = &objectGroups{deps: actions.ObjectDeps{Fleet: c.Fleet, Env: objEnv, AWS: aws}}
	if r.snap != nil {
		return nil
	}
	return createFirstObjects(ctx, r.o, r.sc, r.client, c.Fleet, objEnv, r.log)
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

// watchObjects starts the harness's watch of the groups' objects and has the checker hold every
// object to its group's conditions.
func (r *strategyRun) watchObjects(ctx context.Context) error {
	if r.objects == nil {
		return nil
	}
	w, err := observe.StartObjects(ctx, r.env.Config, r.objects.deps.Fleet, r.objects.deps.AWS, r.fleet.Namespaces)
	if err != nil {
		return err
	}
	r.objects.watch = w
	r.checker.CheckObjects(w)
	return nil
}

// watchProgress makes runCtx end, with a *observe.RefusedError or *observe.StuckError as its cause,
// once the controller makes no progress for a reason the harness can see.
func (r *strategyRun) watchProgress() {
	rctx, cancel := context.WithCancelCause(r.runCtx)
	p := &progressWatch{cloud: r.cloud, cancel: cancel,
		calls: &observe.Refusals{Window: refusalWindow, MinCalls: refusalMinCalls, Region: r.sc.AWS.Region},
		conds: &observe.Conditions{Window: refusalWindow}}
	if r.objects != nil {
		p.objs = r.objects.watch
	}
	if now, err := r.cloud.Now(); err == nil {
		p.calls.Start = now
	}
	if recent, err := r.cloud.CallsSince(0); err == nil && len(recent) > 0 {
		p.seq = int(recent[len(recent)-1].Seq)
	}
	r.progress = p
	done := make(chan struct{})
	go p.run(rctx, done)
	r.stops.add(func() { close(done); cancel(nil) })
	r.runCtx = rctx
}
