package scenario

import (
	"strings"
	"testing"
)

// inProcessScenario has one inProcess strategy; its strategies line is replaced per case.
const inProcessScenario = `apiVersion: restartsim/v1
kind: Scenario
name: t
fleet: {targetGroupBindings: 4}
controller:
  strategies:
    - STRATEGY
timeline:
  - {action: restart, mode: crash}
`

func parseInProcess(t *testing.T, strategy string) (*Scenario, error) {
	t.Helper()
	return Parse("t.yaml", []byte(strings.Replace(inProcessScenario, "STRATEGY", strategy, 1)))
}

func TestInProcessDefaults(t *testing.T) {
	s, err := parseInProcess(t, "{name: mine, inProcess: {}}")
	if err != nil {
		t.Fatal(err)
	}
	st := s.Controller.Strategies[0]
	if st.InProcess.LeaderElectionID != DefaultLeaderElectionID || st.Checkpoint != "" || !st.ElectsLeader(1) {
		t.Errorf("strategy = %+v (inProcess %+v): want the default Lease, no checkpoint, leader election on", st, st.InProcess)
	}
	if !s.Controller.HasInProcess() {
		t.Error("HasInProcess = false")
	}
	off, err := parseInProcess(t, "{name: mine, inProcess: {}, leaderElection: false}")
	if err != nil {
		t.Fatal(err)
	}
	if off.Controller.Strategies[0].ElectsLeader(1) {
		t.Error("leaderElection: false still elects a leader")
	}
}

func TestInProcessErrors(t *testing.T) {
	for _, tc := range []struct {
		strategy, want string
	}{
		{"{name: mine, inProcess: {}, checkpoint: none}", "controller.strategies[0].checkpoint: does not apply to an inProcess strategy"},
		{"{name: mine, inProcess: {}, maxConcurrentReconciles: 3}", "controller.strategies[0].maxConcurrentReconciles: does not apply to an inProcess strategy"},
		{"{name: mine, inProcess: {leaderElectionID: Not_A_Name}}", "controller.strategies[0].inProcess.leaderElectionID: must be a Lease name"},
		{"{name: mine, inProcess: {reconcileControllers: ['']}}", "controller.strategies[0].inProcess.reconcileControllers: entry 0 is empty"},
		{"{name: mine, inProcess: {}, leaseDuration: 0s}", "controller.strategies[0].leaseDuration: must be positive"},
		{"{name: mine, inProcess: {}, leaderElection: false, retryPeriod: 1s}", "apply only with leader election"},
		{"{name: mine, inProcess: {}, external: {command: [x]}}", "controller.strategies[0].inProcess: does not apply to an external controller"},
	} {
		t.Run(tc.strategy, func(t *testing.T) {
			_, err := parseInProcess(t, tc.strategy)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
