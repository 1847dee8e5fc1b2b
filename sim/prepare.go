package sim

import (
	"context"

	"github.com/restartsim/restartsim/sim/scenario"
)

// preparedRun is a run that passed prepare's checks, and what it decided before its first strategy.
type preparedRun struct {
	o    runConfig
	sc   *scenario.Scenario // with only the strategies asked for
	arms []arm
	// cluster is what a run on a kubeconfig cluster decided (nil on envtest).
	cluster *clusterRun
}

// prepare checks what a run needs before it writes anything: the scenario, the strategies asked
// for, the files they name on this machine and, on a kubeconfig cluster, that the cluster is fit
// for the run.
func prepare(ctx context.Context, o runConfig) (*preparedRun, error) {
	sc, arms, err := check(o)
	if err != nil {
		return nil, err
	}
	if err := checkEnvtestAssets(o, sc); err != nil {
		return nil, err
	}
	cluster, err := prepareCluster(ctx, o, sc)
	if err != nil {
		return nil, err
	}
	return &preparedRun{o: o, sc: sc, arms: arms, cluster: cluster}, nil
}
