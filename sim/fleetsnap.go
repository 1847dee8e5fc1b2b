package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// fleetSnapshot is a seed's fleet created once and saved: etcd's data directory (API server stopped)
// and fakeaws's resources. Each strategy then starts its own API server and fakeaws on copies, so every
// strategy sees identical objects (same names, IPs, UIDs and target group ARNs) and the fleet's
// creation (minutes at 10k bindings) is paid once per seed instead of once per strategy.
type fleetSnapshot struct {
	etcdDir string
	aws     *fakeaws.Snapshot
	fleet   *workload.Fleet // the created fleet: its target group ARNs and security group IDs
	stats   workload.Stats
}

// useFleetSnapshot tells whether strategies share snapshots: only envtest with the in-process fakeaws
// can be copied, and only several runs per seed gain from it.
func useFleetSnapshot(o Options, sc *scenario.Scenario, runsPerSeed int) bool {
	return !o.NoFleetSnapshot && runsPerSeed > 1 && o.Kubeconfig == "" && sc.Cluster.Kubeconfig == nil &&
		o.AWSEndpoint == "" && sc.Controller.External == nil
}

// buildFleetSnapshot creates seed's fleet in dir and saves it. The caller removes dir.
func buildFleetSnapshot(ctx context.Context, o Options, sc *scenario.Scenario, seed int64, dir string) (*fleetSnapshot, error) {
	log := o.Logger.WithValues("fleetSnapshot", seed)
	snap := &fleetSnapshot{etcdDir: filepath.Join(dir, "etcd")}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	e, err := startEnv(ctx, o, sc, filepath.Join(dir, "env"), snap.etcdDir, log)
	if err != nil {
		return nil, err
	}
	running := true
	defer func() {
		if running {
			stopEnv(e, log)
		}
	}()
	c, err := client.New(e.Config, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	backend, err := startAWS(o, sc, seed, dir, nil)
	if err != nil {
		return nil, err
	}
	defer backend.Close()
	spec, fleet, err := planFleet(e, sc, seed)
	if err != nil {
		return nil, err
	}
	log.Info("creating the fleet once for every strategy", "tgbs", spec.TGBs)
	snap.stats, err = fleet.Create(ctx, fleetOptions(o, sc, c, backend, runLabels(sc, seed), log))
	if err != nil {
		return nil, fmt.Errorf("creating the fleet: %w", err)
	}
	fleet.Close()
	snap.fleet = fleet
	src, ok := backend.(interface {
		Snapshot() (*fakeaws.Snapshot, error)
	})
	if !ok {
		return nil, fmt.Errorf("fleet snapshot: AWS backend %T cannot be copied", backend)
	}
	if snap.aws, err = src.Snapshot(); err != nil {
		return nil, err
	}
	t := time.Now()
	running = false
	if err := e.Stop(); err != nil { // etcd must be stopped for its files to be a consistent copy
		return nil, fmt.Errorf("stopping the fleet's API server: %w", err)
	}
	log.Info("fleet saved", "objects", snap.stats.Objects, "created", snap.stats.Elapsed.Round(time.Millisecond),
		"stopped", time.Since(t).Round(time.Millisecond), "dir", snap.etcdDir)
	return snap, nil
}
