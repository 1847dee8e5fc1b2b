package sim

import (
	"context"

	"github.com/restartsim/restartsim/sim/scenario"
)

// runStrategy runs one arm (a strategy, and its external controller if any) with seed into dir:
// it starts the environment, fakeaws, the fleet and the controller, warms up, runs the measured
// phase and collects its measurements. With snap, the environment and fakeaws start from copies
// of the snapshot's fleet instead of creating one; cluster is the strategy run's place on a
// kubeconfig cluster (nil on envtest).
func runStrategy(ctx context.Context, o runConfig, sc *scenario.Scenario, a arm, seed int64, dir string, snap *fleetSnapshot, cluster *clusterRun) (*strategyOutcome, error) {
	r := &strategyRun{strategyInputs: strategyInputs{o: o, sc: sc, strat: a.st, ext: a.ext, conv: a.converge, seed: seed, dir: dir,
		snap: snap, cluster: cluster, log: o.Logger.WithValues("strategy", a.st.Name)}}
	defer r.stops.stop()
	var err error
	if r.clusterPhase, err = r.startCluster(ctx); err != nil {
		return nil, err
	}
	if r.cloud, err = r.startAWS(ctx); err != nil {
		return nil, err
	}
	if r.fleetPhase, err = r.startFleet(ctx); err != nil {
		return nil, err
	}
	if r.controllerPhase, err = r.startController(ctx); err != nil {
		return nil, err
	}
	if err := r.warmUp(ctx); err != nil {
		return nil, err
	}
	m, err := r.measure(ctx)
	if err != nil {
		return nil, err
	}
	return r.collect(m)
}
