package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
	"github.com/restartsim/restartsim/sim/workload"
)

// fleetSnapshot is a seed's fleet created and converged once, then saved: etcd's data directory (API
// server stopped) and fakeaws's resources and clock. Each strategy then starts its own API server and
// fakeaws on copies, so every strategy sees identical objects (same names, IPs, UIDs, target group ARNs
// and registered targets), and the fleet's creation and first convergence (minutes each at 10,000
// bindings) are paid once per seed instead of once per strategy.
type fleetSnapshot struct {
	etcdDir string
	aws     *fakeaws.Snapshot
	fleet   *workload.FleetPlan // the created fleet: its target group ARNs and security group IDs
	stats   workload.Stats
	// converged is the wall time the reference controller took to register every target.
	converged time.Duration
	// objectsRunID is the {{.RunID}} the snapshot's object groups were made with ("": none).
	objectsRunID string
}

// convergeFleet runs the reference controller with upstream checkpoints until AWS holds every target,
// healthy, and every readiness gate is True, then stops it. The registrations, health, finalizers, gate
// conditions and checkpoints are what any strategy's warm-up would produce (same controller): at 10,000
// bindings the registrations are minutes of API server time per strategy, and the checkpoints most of a
// minute. A strategy's warm-up then finds its bindings converged: no-checkpoint ignores the annotations,
// checkpoint strategies early-exit on them (compact reads the upstream form too).
func convergeFleet(ctx context.Context, o runConfig, sc *scenario.Scenario, e *env.Env, simulator *kubesim.Simulator, cloud backend.Backend, fleet *workload.FleetPlan, labels map[string]string, seed int64, dir string) error {
	log := o.Logger.WithValues("fleetSnapshot", seed)
	ctrlLog, closeLog, err := fileLogger(filepath.Join(dir, "controller.log"))
	if err != nil {
		return err
	}
	defer closeLog()
	throttle, rate := sut.FastestThrottle(sc)
	workers := convergeWorkers(sc)
	ctrls := sut.NewInProcess(sut.InProcessConfig{ReplicaConfig: sut.ReplicaConfig{Kube: e.ControllerConfig, AWS: cloud,
		Creds: runCreds(o, sc), Clock: sc.Clock(), Replicas: 1, Namespaces: fleet.Namespaces, Logger: ctrlLog,
		Strategy: scenario.Strategy{Name: "converge", Checkpoint: scenario.CheckpointAnnotation, MaxConcurrentReconciles: workers, Throttle: throttle}},
		Seed: uint64(seed)})
	if err := ctrls.Start(ctx); err != nil {
		ctrls.Stop()
		return fmt.Errorf("starting the controller: %w", err)
	}
	defer ctrls.Stop()
	pwCtx, stopPW := context.WithCancel(ctx)
	defer stopPW()
	pw, err := observe.StartWatch(pwCtx, e.Config, labels, simulator, nil)
	if err != nil {
		return err
	}
	log.Info("converging the fleet once for every strategy", "workers", workers)
	chk := observe.NewChecker(pw, cloud, nil)
	converging := startConvergence(o.Progress, "converging the fleet", chk)
	defer converging.End()
	return observe.WarmUp(ctx, chk, sut.WarmupTimeout(sc.Fleet.TargetGroupBindings, rate, sc.Clock()), pw.WithoutCheckpoint)
}

// convergeWorkers is controller.warmupWorkers, or 16.
func convergeWorkers(sc *scenario.Scenario) int {
	if sc.Controller.WarmupWorkers > 0 {
		return sc.Controller.WarmupWorkers
	}
	return 16
}

// useFleetSnapshot tells whether strategies share snapshots: only envtest with the in-process fakeaws
// can be copied, and only several runs per seed gain from it; a test's own controller (inProcess)
// need not read what the reference controller converged.
func useFleetSnapshot(o runConfig, sc *scenario.Scenario, runsPerSeed int) bool {
	return !o.NoFleetSnapshot && runsPerSeed > 1 && o.Kubeconfig == "" && sc.Cluster.Kubeconfig == nil &&
		o.AWSEndpoint == "" && sc.Controller.External == nil && !sc.Controller.HasInProcess() && objectsFitSnapshot(sc)
}

// objectsFitSnapshot tells whether a snapshot can hold the scenario's object groups: only groups
// that need nothing of a controller to exist, as the snapshot's reference controller does nothing
// for them. A group with an AWS resource, or that waits for another group's objects to be ready,
// needs the controller under test.
func objectsFitSnapshot(sc *scenario.Scenario) bool {
	for _, g := range sc.Fleet.Objects {
		if g.AWS != nil || len(g.After) > 0 {
			return false
		}
	}
	return true
}

// buildFleetSnapshot creates and converges seed's fleet in dir and saves it. The caller removes dir.
func buildFleetSnapshot(ctx context.Context, o runConfig, sc *scenario.Scenario, seed int64, dir string) (*fleetSnapshot, error) {
	log := o.Logger.WithValues("fleetSnapshot", seed)
	snap := &fleetSnapshot{etcdDir: filepath.Join(dir, "etcd")}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if o.SetupMemoryLimit > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(o.SetupMemoryLimit))
	}
	cloud, err := startAWS(ctx, o, sc, seed, dir, nil)
	if err != nil {
		return nil, err
	}
	defer cloud.Close()
	labels := runLabels(sc, seed)
	if err := snap.create(ctx, o, sc, seed, cloud, labels, filepath.Join(dir, "env")); err != nil {
		return nil, err
	}
	// A fresh API server for the convergence: the one that created the fleet holds a creation's worth
	// of watch history and heap (the run's peak memory otherwise), which no strategy's own API server has.
	e, err := startEnv(ctx, o, sc, filepath.Join(dir, "env-converge"), snap.etcdDir, o.SetupMemoryLimit, log)
	if err != nil {
		return nil, err
	}
	running := true
	defer func() {
		if running {
			stopEnv(e, log)
		}
	}()
	simulator, stopSim, err := startSimulator(ctx, e, labels, false, log)
	if err != nil {
		return nil, err
	}
	defer stopSim()
	if err := waitSynced(ctx, simulator); err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := convergeFleet(ctx, o, sc, e, simulator, cloud, snap.fleet, labels, seed, dir); err != nil {
		return nil, err
	}
	snap.converged = time.Since(t0)
	stopSim()
	src, ok := cloud.(interface {
		Snapshot() (*fakeaws.Snapshot, error)
	})
	if !ok {
		return nil, fmt.Errorf("fleet snapshot: AWS backend %T cannot be copied", cloud)
	}
	if snap.aws, err = src.Snapshot(); err != nil {
		return nil, err
	}
	t := time.Now()
	// etcd must be stopped for its files to be a consistent copy. The creation and convergence wrote
	// most objects several times: without compaction every strategy's etcd would page in that
	// history (half the database at 1k and 10k bindings).
	running = false
	saving := startPhase(o.Progress, "saving the fleet snapshot (compacting etcd)")
	before, after, err := e.StopCompacted(ctx)
	saving.End()
	if err != nil {
		return nil, fmt.Errorf("saving the fleet's etcd: %w", err)
	}
	log.Info("fleet saved", "objects", snap.stats.Objects, "created", snap.stats.Elapsed.Round(time.Millisecond), "converged", snap.converged.Round(time.Millisecond),
		"etcdBytesBefore", before.File, "etcdBytes", after.File, "saved", time.Since(t).Round(time.Millisecond), "dir", snap.etcdDir)
	return snap, nil
}

// create creates the fleet on an API server of its own (stopped afterwards; etcd keeps the objects).
// Create writes every pod's status and slice itself, so the simulated kubelet starts only afterwards.
func (snap *fleetSnapshot) create(ctx context.Context, o runConfig, sc *scenario.Scenario, seed int64, cloud backend.Backend, labels map[string]string, workDir string) error {
	log := o.Logger.WithValues("fleetSnapshot", seed)
	e, err := startEnv(ctx, o, sc, workDir, snap.etcdDir, o.SetupMemoryLimit, log)
	if err != nil {
		return err
	}
	defer stopEnv(e, log)
	c, err := client.New(e.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		return err
	}
	spec := sc.Fleet.WorkloadSpec()
	fleet, err := planFleet(spec, seed)
	if err != nil {
		return err
	}
	log.Info("creating the fleet once for every strategy", "tgbs", spec.TGBs)
	if snap.stats, err = fleet.Create(ctx, fleetOptions(o, sc, c, cloud, labels, log)); err != nil {
		return fmt.Errorf("creating the fleet: %w", err)
	}
	fleet.Close()
	snap.fleet = fleet
	return snap.createObjects(ctx, o, sc, seed, c, cloud, spec.ClusterName, fleet.Namespaces, log)
}

// createObjects creates the scenario's object groups (objectsFitSnapshot) with a run ID of the
// seed's, which every strategy run on the snapshot then uses.
func (snap *fleetSnapshot) createObjects(ctx context.Context, o runConfig, sc *scenario.Scenario, seed int64, c client.Client,
	cloud backend.Backend, clusterName string, namespaces []string, log logr.Logger) error {
	compiled, err := sc.Objects()
	if err != nil {
		return runerr.BadInput(err)
	}
	if compiled == nil {
		return nil
	}
	aws, err := observe.AWSStateOf(cloud)
	if err != nil {
		return runerr.BadInput(err)
	}
	runID := objectsRunID(fmt.Sprintf("fleet snapshot/%d", seed))
	objEnv, err := objectEnv(cloud, aws, sc, clusterName, namespaces, runID)
	if err != nil {
		return err
	}
	if err := createFirstObjects(ctx, o, sc, c, compiled.Fleet, objEnv, log); err != nil {
		return err
	}
	snap.objectsRunID = runID
	return nil
}
