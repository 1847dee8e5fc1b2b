package sim

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/results"
)

// convergeWithScenario converges a small fleet (with the spec fields and endpoint layouts in which
// controllers' checkpoints could differ) with the no-checkpoint strategy's controller, then
// restarts into the checkpoint strategy's.
const convergeWithScenario = `apiVersion: restartsim/v1
kind: Scenario
name: it-converge-with
seed: 11
timeScale: 2
aws: {profile: aws-documented, warmupProfile: unlimited, healthyAfter: 2s, deregistrationDelay: 10s}
fleet: {targetGroupBindings: 8, podsPerService: 2, nodes: 3, readinessGateShare: 0.5, networkingShare: 0.5,
  targetGroupProtocolShare: 0.5, assumeRoleShare: 0.5, namedPortShare: 0.5, duplicateEndpointShare: 0.5}
controller:
  strategies:
    - {name: no-checkpoint, checkpoint: none}
    - {name: checkpoint-after, checkpoint: annotation, deferralDelay: 30m, deferralJitter: 1m, convergeWith: no-checkpoint}
timeline:
  - {action: restart, mode: crash}
  - {after: 2s, action: churn, kind: mixed, services: 3}
  - {waitFor: steadyState, timeout: 2m}
`

// TestConvergeWithOneRestartIntoAnother runs only the strategy that converges with another's
// controller. The controller that took over reconciles every binding in full and saves a
// checkpoint for each: the no-checkpoint controller, which never saves one, converged the fleet
// (after a restart into itself the checkpoint controller early-exits on every binding and saves
// none), and the checkpoint controller took over. The results say both.
func TestConvergeWithOneRestartIntoAnother(t *testing.T) {
	st := runSelected(t, "it-converge-with.yaml", convergeWithScenario, []string{"checkpoint-after"}, 4*time.Minute)
	if !st.Invariants.Passed {
		t.Fatalf("invariants: %+v", st.Invariants)
	}
	if st.Name != "checkpoint-after" || st.Config["convergeWith"] != "no-checkpoint" || st.Config["checkpoint"] != "annotation" ||
		st.Config["convergeSHA256"] == "" {
		t.Errorf("results %s config %v: want the converging strategy (no-checkpoint) and this one's checkpoint recorded", st.Name, st.Config)
	}
	if !hasEvent(st.Events, "restart") {
		t.Errorf("events %+v: want the restart", st.Events)
	}
	w := st.Summary.Work
	if w == nil || w.Source != results.WorkSourceReference || w.ReconcilesUntilDrained == nil {
		t.Fatalf("work %s: want the takeover's reconciles", describeWork(w))
	}
	bindings := st.Summary.Objects.TGBs
	t.Logf("work %s; checkpoint patches %d", describeWork(w), st.Summary.K8sWrites.CheckpointPatches)
	full := *w.ReconcilesUntilDrained
	if w.EarlyExits != nil {
		full -= *w.EarlyExits // the reconciles its own checkpoint patches caused
	}
	if full < bindings {
		t.Errorf("work %s: want every one of the %d bindings reconciled in full, not early-exiting", describeWork(w), bindings)
	}
	if n := st.Summary.K8sWrites.CheckpointPatches; n < bindings {
		t.Errorf("%d checkpoint patches after the restart, want one per binding (%d) at least", n, bindings)
	}
}

func hasEvent(events []results.Event, kind string) bool {
	for _, e := range events {
		if e.Kind == kind {
			return true
		}
	}
	return false
}
