package sim

import (
	"testing"
	"time"
)

// lbcConvergeWithScenario converges the fleet with the reference controller and restarts into
// LBC, nothing changing meanwhile: the fleet sets the spec fields, the Service port layout and the
// endpoints listed in two slices in which the two controllers' checkpoints could differ.
const lbcConvergeWithScenario = `apiVersion: restartsim/v1
kind: Scenario
name: lbc-converge-with
seed: 5
cluster: {crds: ["${LBC_CRDS}"]}
aws: {profile: aws-documented, warmupProfile: unlimited, healthyAfter: 2s, deregistrationDelay: 10s}
fleet: {targetGroupBindings: 30, podsPerService: 2, instanceShare: 0.2, readinessGateShare: 0.3, networkingShare: 0.2,
  targetGroupProtocolShare: 0.5, assumeRoleShare: 0.5, namedPortShare: 0.5, duplicateEndpointShare: 0.5}
controller:
  strategies:
    - {name: reference, checkpoint: annotation}
    - name: lbc
      convergeWith: reference
` + lbcExternal + `timeline:
  - {action: restart, mode: crash}
  - {waitFor: steadyState, timeout: 3m}
`

// TestLBCTakesOverFromTheReference: LBC, started in place of the reference controller that
// converged the fleet, accepts every binding's checkpoint: it registers and deregisters nothing,
// reads no target health, assumes no role (which a full reconcile of the bindings with
// iamRoleArnToAssume would) and writes no checkpoint.
func TestLBCTakesOverFromTheReference(t *testing.T) {
	lbcPaths(t)
	st := runSelected(t, "lbc-converge-with.yaml", lbcConvergeWithScenario, []string{"lbc"}, 6*time.Minute)
	if !st.Invariants.Passed {
		t.Fatalf("invariants: %+v", st.Invariants)
	}
	if st.Config["convergeWith"] != "reference" || st.Config["binary"] == "" {
		t.Errorf("config %v: want LBC's binary, converged with the reference", st.Config)
	}
	s := st.Summary
	t.Logf("AWS calls after the switch: %v; checkpoint patches %d", s.AWSCalls, s.K8sWrites.CheckpointPatches)
	for _, op := range []string{"RegisterTargets", "DeregisterTargets", "DescribeTargetHealth", "AssumeRole"} {
		if n := s.AWSCalls[op]; n > 0 {
			t.Errorf("%d %s calls: LBC reconciled a binding whose checkpoint the reference saved", n, op)
		}
	}
	if n := s.K8sWrites.CheckpointPatches; n > 0 {
		t.Errorf("%d checkpoint patches: LBC rewrote checkpoints the reference saved", n)
	}
}
