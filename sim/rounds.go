package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/scenario"
)

// runRounds runs every arm once per round (repeat), each round's seed on a fleet snapshot shared
// by its arms when the scenario allows one, and returns every arm's runs.
func runRounds(ctx context.Context, p *preparedRun, dir string, res *results.Results) ([][]*strategyOutcome, error) {
	o, sc, arms := p.o, p.sc, p.arms
	runs := make([][]*strategyOutcome, len(arms))
	strategyRuns := 0 // numbers the strategy runs, which on a kubeconfig cluster name their namespaces
	var snap *fleetSnapshot
	dropSnapshot := func() {
		if snap != nil {
			_ = os.RemoveAll(snap.etcdDir) // large; the logs beside it stay
		}
	}
	defer dropSnapshot()
	var roundSecs []float64
	target := rounds(sc) // rounds to run before the next look (A/B) or in all
	for round := 0; round < target; round++ {
		if res.AB != nil && round >= 2 && !roundFits(res.AB, res.Scenario.StartedAt, roundSecs) {
			// Even the first look's runs stop at the budget; the gate judges those it has.
			res.AB.Stopped = "budget"
			fmt.Fprintf(o.Stdout, "A/B: the budget ends the runs after %d + %d\n", round, round)
			abLook(o.Stdout, res, arms, runs, roundSecs)
			break
		}
		seed := roundSeed(sc, round)
		if round == 0 || seed != roundSeed(sc, round-1) {
			dropSnapshot()
			var err error
			if snap, err = seedSnapshot(ctx, o, sc, len(arms), seed, filepath.Join(dir, "fleet-"+strconv.FormatInt(seed, 10))); err != nil {
				return nil, fmt.Errorf("fleet snapshot: %w", err)
			}
			if snap != nil {
				res.Scenario.FleetSetupSeconds += measure.Round3(snap.stats.Elapsed.Seconds())
			}
		}
		roundStart := time.Now()
		for k, i := range armOrder(sc, arms, round) {
			a := arms[i]
			sdir := runDir(sc, dir, a, round, "")
			o.Logger.Info(fmt.Sprintf("strategy %d/%d %s, repeat %d/%d", k+1, len(arms), a.st.Name, round+1, target))
			strategyRuns++
			runStart := time.Now()
			r, err := runStrategy(ctx, o, sc, a, seed, sdir, snap, p.cluster.forStrategy(strategyRuns))
			if err != nil {
				return nil, fmt.Errorf("strategy %s: %w", a.st.Name, err)
			}
			runs[i] = append(runs[i], r)
			addRun(res, a, r, time.Since(runStart))
		}
		roundSecs = append(roundSecs, time.Since(roundStart).Seconds())
		if res.AB != nil && round+1 == target {
			target = max(target, abLook(o.Stdout, res, arms, runs, roundSecs))
		}
	}
	return runs, nil
}

// seedSnapshot builds seed's fleet snapshot when the strategies can share one (nil otherwise).
func seedSnapshot(ctx context.Context, o runConfig, sc *scenario.Scenario, strategies int, seed int64, dir string) (*fleetSnapshot, error) {
	if !useFleetSnapshot(o, sc, strategies) {
		return nil, nil
	}
	return buildFleetSnapshot(ctx, o, sc, seed, dir)
}

// runDir is the directory of an arm's run in a round; again names a run made once more.
func runDir(sc *scenario.Scenario, dir string, a arm, round int, again string) string {
	if rounds(sc) > 1 {
		return filepath.Join(dir, a.st.Name, "repeat-"+strconv.Itoa(round+1)+again)
	}
	return filepath.Join(dir, a.st.Name+again)
}

// addRun records a run of arm a that took wall in the results: the A/B order and wall times,
// the fleet's setup and the cluster's version.
func addRun(res *results.Results, a arm, r *strategyOutcome, wall time.Duration) {
	if res.AB != nil {
		res.AB.Order = append(res.AB.Order, a.st.Name)
		res.AB.RunSeconds = append(res.AB.RunSeconds, measure.Round3(wall.Seconds()))
	}
	res.Scenario.FleetSetupSeconds += measure.Round3(r.fleetSetup.Seconds())
	if res.Environment.KubernetesVersion == "" {
		res.Environment.KubernetesVersion = r.k8sVersion
	}
}
