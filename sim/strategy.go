package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/reports/results"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
	"github.com/restartsim/restartsim/sim/timeline"
	"github.com/restartsim/restartsim/sim/workload"
)

// RunLabel marks every object of a run.
const RunLabel = "restartsim.io/run"

// strategyRun is one strategy's (one repeat's) outcome.
type strategyRun struct {
	name       string
	out        *measure.Output
	invariants results.Invariants
	events     []results.Event
	objects    results.Objects
	k8sVersion string
	// input is what the measurements saw (tests recompute figures from it).
	input *measure.Input
	pods  *observe.Watch
	// fleetSetup is the wall time of this run's own fleet creation (zero with a snapshot).
	fleetSetup time.Duration
}

// runStrategy runs one strategy on a fresh environment, fakeaws and fleet; with snap, the environment
// and fakeaws start from copies of the snapshot's fleet instead of creating one.
func runStrategy(ctx context.Context, o Options, sc *scenario.Scenario, strat scenario.Strategy, external *scenario.External, seed int64, dir string, snap *fleetSnapshot) (*strategyRun, error) {
	log := o.Logger.WithValues("strategy", strat.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cr := runCreds(o, sc)
	ctrlLog, closeLog, err := fileLogger(filepath.Join(dir, "controller.log"))
	if err != nil {
		return nil, err
	}
	defer closeLog()

	// Kubernetes.
	etcdDir := ""
	var fromAWS *fakeaws.Snapshot
	if snap != nil {
		etcdDir, fromAWS = filepath.Join(dir, "etcd"), snap.aws
		if err := env.CopyDataDir(snap.etcdDir, etcdDir); err != nil {
			return nil, err
		}
		defer os.RemoveAll(etcdDir) // runs after the API server has stopped
	}
	e, err := startEnv(ctx, o, sc, filepath.Join(dir, "env"), etcdDir, 0, log)
	if err != nil {
		return nil, err
	}
	defer stopEnv(e, log)
	c, err := client.New(e.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		return nil, err
	}

	// AWS.
	cloud, err := startAWS(o, sc, seed, dir, fromAWS)
	if err != nil {
		return nil, err
	}
	defer cloud.Close()

	labels := runLabels(sc, seed)
	if o.cluster != nil {
		labels = o.cluster.labels(sc)
	}
	spec, fleet, err := planFleet(sc, seed, o.cluster)
	if err != nil {
		return nil, err
	}

	simulator, stopSim, err := startSimulator(ctx, e, labels, o.cluster != nil && o.cluster.clusterSlices, log)
	if err != nil {
		return nil, err
	}
	defer stopSim()

	if o.cluster != nil {
		// Registered before the fleet exists, so an interrupted creation (SIGINT) is cleaned up too;
		// it runs after the controllers are stopped (defers run last-in first-out), and stops the
		// simulated kubelet first, whose heartbeats would otherwise renew the deleted node Leases.
		defer func() {
			fleet.Close()
			stopSim()
			cleanupCluster(ctx, c, labels, o.cluster.controllerManager, log)
		}()
	}
	fopts := fleetOptions(o, sc, c, cloud, labels, log)
	var fleetSetup time.Duration
	if snap != nil {
		if err := fleet.Adopt(ctx, snap.fleet, fopts); err != nil {
			return nil, fmt.Errorf("adopting the snapshot's fleet: %w", err)
		}
		log.Info("fleet restored from the snapshot", "tgbs", spec.TGBs)
	} else {
		log.Info("creating the fleet", "tgbs", spec.TGBs)
		stats, err := fleet.Create(ctx, fopts)
		if err != nil {
			return nil, fmt.Errorf("creating the fleet: %w", err)
		}
		fleetSetup = stats.Elapsed
		log.Info("fleet created", "objects", stats.Objects, "elapsed", stats.Elapsed.Round(time.Millisecond))
	}
	defer fleet.Close()
	if err := waitSynced(ctx, simulator); err != nil {
		return nil, err
	}

	leaseNS := ""
	replicas := sc.Controller.Replicas
	resume := external == nil && ptr.Deref(strat.Resume, false)
	// The resume watermark lives in the lease namespace (controller.Options.ResumeNamespace default).
	if strat.ElectsLeader(replicas) || external != nil || strat.Binary != "" || resume {
		leaseNS = trunc(fleet.Namespaces[0], 50) + "-leader"
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: leaseNS, Labels: labels}}
		if err := c.Create(ctx, ns); err != nil {
			return nil, fmt.Errorf("creating the lease namespace: %w", err)
		}
	}
	ctrls, err := sut.New(sut.Config{Env: e, AWS: cloud, Creds: cr, Scenario: sc, Strategy: strat, Namespaces: fleet.Namespaces,
		LeaseNamespace: leaseNS, Seed: seed, Dir: dir, Logger: log, ControllerLog: ctrlLog})
	if err != nil {
		return nil, err
	}
	// The harness's own watch syncs while the controller starts (each lists every object).
	pwCtx, stopPW := context.WithCancel(ctx)
	defer stopPW()
	var pw *observe.Watch
	pwErr := make(chan error, 1)
	go func() {
		var err error
		pw, err = observe.StartWatch(pwCtx, e.Config, labels, simulator)
		pwErr <- err
	}()
	ctrlCtx, stopCtrls := context.WithCancel(ctx)
	defer stopCtrls()
	if err := ctrls.Start(ctrlCtx); err != nil {
		ctrls.Stop()
		return nil, fmt.Errorf("starting the controller: %w", err)
	}
	// From here an external controller that exits on its own ends the run at once (runCtx's
	// cause), instead of being noticed as a warm-up or steady-state timeout.
	runCtx, exited := sut.WatchExit(ctx, ctrls)
	defer exited()
	stopped := false
	stopAll := func() {
		if !stopped {
			stopped = true
			ctrls.Stop()
		}
	}
	defer stopAll()
	if err := <-pwErr; err != nil {
		return nil, err
	}

	removed := &observe.Removed{}
	chk := observe.NewChecker(pw, cloud, removed)
	log.Info("warming up until AWS holds every target", "profile", sc.AWS.WarmupProfile)
	var unsettled func() int // bindings the controller still has to checkpoint
	if external == nil && strat.Checkpoint != scenario.CheckpointNone {
		unsettled = pw.WithoutCheckpoint
	}
	wt := sut.WarmupTimeout(spec.TGBs, sut.RegistrationRate(sc, strat, external), sc.TimeScale)
	warming := startPhase(o.Progress, "warming up: the controller converges the fleet")
	defer warming.End()
	if err := observe.WarmUp(runCtx, chk, wt, unsettled); err != nil {
		return nil, sut.StartFailure(runCtx, err)
	}
	if x, ok := ctrls.(interface {
		awaitSettled(context.Context, time.Duration) error
	}); ok {
		if err := x.awaitSettled(runCtx, wt); err != nil {
			return nil, sut.StartFailure(runCtx, err)
		}
	}
	// Readiness gates turn True last; the simulated kubelet then marks their pods Ready and the
	// endpoint controller rewrites their slices. The measured phase starts once that has settled.
	observe.WaitQuiet(runCtx, simulator, wt, log)
	warming.End()
	if err := context.Cause(runCtx); err != nil && ctx.Err() == nil {
		return nil, sut.StartFailure(runCtx, err)
	}
	if resume {
		// A crash right away would leave the new instance a watermark from before the warm-up's
		// last reconciles, and its fast path would redo them: wait for one that covers them.
		rv, err := controller.CurrentResourceVersion(ctx, c, leaseNS)
		if err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
		if err := observe.WaitWatermark(ctx, c, leaseNS, time.Now(), rv, wt); err != nil {
			return nil, err
		}
	}

	// Measured phase.
	if err := backend.ApplyMeasuredLimits(cloud, &sc.AWS); err != nil {
		return nil, fmt.Errorf("switching to the measured AWS limits: %w", err)
	}
	offset := 0
	if calls, err := cloud.CallsSince(0); err == nil {
		offset = len(calls)
	}
	origin, err := cloud.Now()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	ex := &executor{sc: sc, fleet: fleet, ctrls: ctrls, backend: cloud, check: chk, pods: pw, t0: t0, log: log, client: c,
		rng: rand.New(rand.NewPCG(uint64(seed), 3)), removed: removed, callOffset: offset, origin: origin}
	sampler := observe.StartSampler(ctrls, t0, sc.TimeScale)
	eng := &timeline.Engine{TimeScale: sc.TimeScale, Exec: ex, Logger: log}
	plan := timeline.Plan(sc.Timeline, rand.New(rand.NewPCG(uint64(seed), 2)))
	log.Info("running the timeline", "steps", len(plan))
	// Ends the waits for new leaders (restarts with await none) should the run fail.
	tlCtx, stopTL := context.WithCancel(runCtx)
	defer stopTL()
	running := startPhase(o.Progress, fmt.Sprintf("running the timeline (%d steps)", len(plan)))
	_, runErr := eng.Run(tlCtx, t0, plan)
	if runErr == nil {
		// The measurements need every restart's leading time.
		runErr = ex.awaitLeaders(tlCtx)
	}
	end := time.Now()
	running.End()
	samples := sampler.Stop()
	ex.faultsWG.Wait()
	if runErr != nil {
		return nil, sut.MeasuredFailure(runCtx, runErr)
	}
	log.Info("timeline done", "scenarioSeconds", measure.Round3(end.Sub(t0).Seconds()*sc.TimeScale))
	inv, err := chk.Check(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("final invariants: %w", err)
	}
	stopAll()
	stopPW()
	log.Info("controllers stopped")
	seen := ctrls.Observed()
	if resume {
		log.Info("resume fast path", "reconciles", seen.ResumeReconciles)
	}

	calls, err := cloud.CallsSince(offset)
	if err != nil {
		return nil, err
	}
	if o.AWSEndpoint != "" {
		all, _ := cloud.CallsSince(0)
		_ = backend.WriteCallLog(filepath.Join(dir, "aws-calls.jsonl"), all)
	}
	toSec := func(t time.Time) float64 { return t.Sub(t0).Seconds() * sc.TimeScale }
	in := &measure.Input{Calls: calls, Origin: origin, Restarts: ex.restarts, Changes: ex.changes, Drifts: ex.drifts,
		Samples: samples, SteadyAt: ex.steadyAt, End: toSec(end), ChurnAt: churnTimes(ex.events)}
	if e.AuditLog != "" {
		if in.Audit, err = measure.ReadAudit(e.AuditLog, env.ControllerUser, toSec); err != nil {
			log.Error(err, "reading the audit log")
		} else {
			in.HasAudit = true
		}
	} else {
		// No audit log on a kubeconfig cluster: count the writes the watch saw (checkpoint annotation
		// and readiness-gate changes; status updates and events are not counted).
		in.Audit = pw.WatchedWrites(t0, toSec)
	}
	for _, c := range seen.TakeoverCPU {
		in.ReplacementCPU = append(in.ReplacementCPU, measure.CPUSample{At: toSec(c.At), Seconds: c.Seconds})
	}
	for i, at := range seen.AtStops {
		if i < len(in.Restarts) {
			in.Restarts[i].AtStop = at
		}
	}
	for _, t := range seen.CachesSynced {
		in.CachesSynced = append(in.CachesSynced, toSec(t))
	}
	for _, g := range ex.gated {
		f := measure.GateFlip{Pod: g.pod, Pending: toSec(g.at)}
		if t, ok := pw.Flip(g.pod, g.at); ok {
			v := toSec(t)
			f.True = &v
		}
		in.GateFlips = append(in.GateFlips, f)
	}
	pw.Release() // the run keeps only the records
	out := measure.Run(in)
	if resume {
		out.Summary.ResumeReconciles = ptr.To(int(seen.ResumeReconciles))
	}
	pods := spec.TGBs * spec.PodsPerService
	out.Summary.Objects = results.Objects{TGBs: fleet.TGBCount(), Services: fleet.TGBCount(), EndpointSlices: fleet.TGBCount(),
		Pods: pods, Nodes: spec.Nodes, TargetGroups: fleet.TGBCount()}
	return &strategyRun{name: strat.Name, out: out, invariants: inv, events: ex.events, objects: out.Summary.Objects, k8sVersion: e.KubernetesVersion, input: in, pods: pw, fleetSetup: fleetSetup}, nil
}

// startSimulator runs the simulated kubelet and endpoint controller for the run's objects until stop.
func startSimulator(ctx context.Context, e *env.Env, labels map[string]string, clusterSlices bool, log logr.Logger) (*workload.Simulator, func(), error) {
	simulator, err := workload.NewSimulator(e.Config, workload.SimulatorOptions{Labels: labels, ClusterEndpointSlices: clusterSlices, Logger: log.WithName("kubelet")})
	if err != nil {
		return nil, nil, err
	}
	simCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = simulator.Start(simCtx) }()
	return simulator, func() { cancel(); <-done }, nil
}

func waitSynced(ctx context.Context, s *workload.Simulator) error {
	select {
	case <-s.Synced():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startEnv starts the scenario's cluster: a kubeconfig one, or envtest (on etcdDir when set, with
// GOMEMLIMIT when goMemLimit > 0).
func startEnv(ctx context.Context, o Options, sc *scenario.Scenario, workDir, etcdDir string, goMemLimit int64, log logr.Logger) (*env.Env, error) {
	kc := o.Kubeconfig
	kctx := o.KubeContext
	if kc == "" && sc.Cluster.Kubeconfig != nil {
		kc, kctx = sc.Cluster.Kubeconfig.Path, sc.Cluster.Kubeconfig.Context
	}
	assets := o.AssetsDir
	if assets == "" && sc.Cluster.Envtest != nil {
		assets = sc.Cluster.Envtest.AssetsDir
	}
	if kc == "" {
		log.Info("starting the API server (envtest)")
	}
	starting := startPhase(o.Progress, "starting the API server")
	defer starting.End()
	return env.Start(ctx, env.Options{Kubeconfig: kc, Context: kctx, AssetsDir: assets, CRDPaths: sc.Cluster.CRDs, WorkDir: workDir, EtcdDataDir: etcdDir, GoMemLimit: goMemLimit, Logger: log})
}

func stopEnv(e *env.Env, log logr.Logger) {
	if e.Kind != "envtest" {
		return // an existing cluster keeps running
	}
	t := time.Now()
	_ = e.Stop()
	log.Info("API server stopped", "took", time.Since(t).Round(time.Millisecond))
}

// runLabels mark every object of a seed's fleet (the same for all strategies, which may share it).
func runLabels(sc *scenario.Scenario, seed int64) map[string]string {
	return map[string]string{RunLabel: fmt.Sprintf("%s-%d", trunc(sc.Name, 50), seed)}
}

// planFleet plans the scenario's fleet for seed (deterministic: the same plan every call; on a
// kubeconfig cluster, cr names the namespaces after the strategy run).
func planFleet(sc *scenario.Scenario, seed int64, cr *clusterRun) (workload.Spec, *workload.Fleet, error) {
	spec := workload.Spec{
		TGBs: sc.Fleet.TargetGroupBindings, Namespaces: sc.Fleet.Namespaces, PodsPerService: sc.Fleet.PodsPerService,
		InstanceShare: sc.Fleet.InstanceShare, ReadinessGateShare: sc.Fleet.ReadinessGateShare,
		NetworkingShare: sc.Fleet.NetworkingShare, Nodes: sc.Fleet.Nodes,
	}
	if cr != nil {
		spec.NamespacePrefix = "rs-" + cr.name()
		spec.ClusterEndpointSlices = cr.clusterSlices
	}
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		return spec, nil, runerr.BadInput(fmt.Errorf("fleet: %w", err))
	}
	return spec, workload.Plan(spec, rand.New(rand.NewPCG(uint64(seed), 1))), nil
}

func fleetOptions(o Options, sc *scenario.Scenario, c client.Client, cloud backend.Backend, labels map[string]string, log logr.Logger) workload.Options {
	cr := runCreds(o, sc)
	return workload.Options{
		Client: c, AWS: backend.NewProvisioner(cloud, cr), Concurrency: sc.Fleet.Concurrency, Progress: o.Progress,
		Labels: labels, ContainerRestartDelay: time.Duration(float64(sc.Fleet.ContainerRestartDelay.Duration) / sc.TimeScale), Logger: log.WithName("fleet"),
	}
}

// startAWS starts the scenario's AWS (with a copy of from's resources when set).
func startAWS(o Options, sc *scenario.Scenario, seed int64, dir string, from *fakeaws.Snapshot) (backend.Backend, error) {
	return backend.Start(backend.Config{Endpoint: o.AWSEndpoint, Creds: runCreds(o, sc), AWS: &sc.AWS, TimeScale: sc.TimeScale,
		Seed: seed, TargetGroupBindings: sc.Fleet.TargetGroupBindings, CallLog: filepath.Join(dir, "aws-calls.jsonl"),
		From: from, Logger: o.Logger.WithName("fakeaws")})
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// fileLogger logs JSON lines into path.
func fileLogger(path string) (logr.Logger, func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return logr.Discard(), nil, err
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.AddSync(f), zapcore.InfoLevel)
	zl := zap.New(core)
	return zapr.NewLogger(zl), func() { _ = zl.Sync(); f.Close() }, nil
}
