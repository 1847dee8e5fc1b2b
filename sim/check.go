package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// Check runs the checks a run makes of Options.Scenario before it starts anything, and starts
// and creates nothing: the strategies asked for, the timeScale an external controller needs, the
// executables the strategies run (their templates rendered with what is known before the start),
// the extra CRD files, the kubeconfig and envtest assets named, and that cluster.endpointSlices
// fits the cluster. The scenario's own checks (decoding, validation, templates and CEL compiled
// against the CRDs) ran when it was parsed. What Check leaves to the run: finding envtest assets
// no flag or field names, and on a kubeconfig cluster, what the cluster serves. Every problem of
// the scenario's fields is in one scenario.ErrorList; the error is marked runerr.BadInput.
func Check(opts Options) error {
	_, _, err := check(newRunConfig(opts))
	return err
}

// check is Check on defaulted options, returning the scenario with only the strategies asked for
// and their arms.
func check(o runConfig) (*scenario.Scenario, []arm, error) {
	sc := o.Scenario
	if sc == nil {
		return nil, nil, runerr.BadInput(errors.New("sim: Options.Scenario is required"))
	}
	if clock := sc.Clock(); sc.Controller.External != nil && clock.Accelerated() {
		return nil, nil, runerr.BadInput(fmt.Errorf("timeScale %g: external controllers run on wall-clock timers; use timeScale 1", clock.Scale()))
	}
	if len(o.Strategies) > 0 {
		var err error
		if sc, err = selectStrategies(sc, o.Strategies); err != nil {
			return nil, nil, runerr.BadInput(err)
		}
	}
	if err := checkManagerSetups(o, sc); err != nil {
		return nil, nil, runerr.BadInput(err)
	}
	if err := checkHost(o, o.Scenario, sc); err != nil {
		return nil, nil, err
	}
	arms, err := runArms(sc, o.Scenario)
	if err != nil {
		return nil, nil, runerr.BadInput(err)
	}
	if !onKubeconfig(o, sc) && sc.Cluster.EndpointSlices == scenario.EndpointSlicesCluster {
		return nil, nil, runerr.BadInput(fmt.Errorf("cluster.endpointSlices: %q needs a cluster with kube-controller-manager (--kubeconfig); envtest has none", scenario.EndpointSlicesCluster))
	}
	return sc, arms, nil
}

// selectStrategies returns a copy of sc with only the named strategies.
func selectStrategies(sc *scenario.Scenario, names []string) (*scenario.Scenario, error) {
	have := sc.StrategyNames()
	for _, n := range names {
		if !slices.Contains(have, n) {
			return nil, fmt.Errorf("strategy %q: not in scenario %s (have: %v)", n, sc.Name, have)
		}
	}
	if sc.Controller.External != nil {
		return sc, nil
	}
	cp := *sc
	cp.Controller.Strategies = nil
	for _, st := range sc.Controller.Strategies {
		if slices.Contains(names, st.Name) {
			cp.Controller.Strategies = append(cp.Controller.Strategies, st)
		}
	}
	return &cp, nil
}
