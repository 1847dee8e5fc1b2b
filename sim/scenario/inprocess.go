package scenario

import (
	"reflect"
	"slices"
)

// InProcess is a strategy whose replicas are controller-runtime managers built in the harness's
// own process by a Go test (package restartsimtest): the harness makes each manager, the test's
// setup function registers its reconcilers. Only a Go test can run such a strategy.
type InProcess struct {
	// LeaderElectionID is the name of the Lease the managers elect their leader with, in the
	// namespace the harness creates for it. Default restartsim-inprocess.
	LeaderElectionID string `json:"leaderElectionID,omitempty"`
	// ReconcileControllers are the controller names (the `controller` label of
	// controller_runtime_reconcile_*, the `name` label of workqueue_depth) whose reconcile work and
	// queue depth count. Default: every controller-runtime controller of the process.
	ReconcileControllers []string `json:"reconcileControllers,omitempty"`
}

// DefaultLeaderElectionID is InProcess.LeaderElectionID's default.
const DefaultLeaderElectionID = "restartsim-inprocess"

// inProcessFields are the strategy fields an inProcess strategy takes: what the harness decides
// for the managers it builds (leader election and its timings), not the reference controller's knobs.
var inProcessFields = []string{"name", "inProcess", "convergeWith", "leaderElection", "leaseDuration", "renewDeadline", "retryPeriod", "releaseOnCancel"}

func setInProcessDefaults(x *InProcess) {
	if x.LeaderElectionID == "" {
		x.LeaderElectionID = DefaultLeaderElectionID
	}
}

// HasInProcess reports whether any strategy of the scenario is inProcess.
func (c *Controller) HasInProcess() bool {
	return slices.ContainsFunc(c.Strategies, func(st Strategy) bool { return st.InProcess != nil })
}

// validateStrategyInProcess checks an inProcess strategy at path p.
func (v *validator) validateStrategyInProcess(s *Scenario, st Strategy, p string) {
	for _, f := range sortedKeys(fieldsOf(reflect.TypeOf(Strategy{}))) {
		if !slices.Contains(inProcessFields, f) && v.given(p+"."+f) {
			v.addf(p+"."+f, "does not apply to an inProcess strategy (it takes only name, convergeWith and the leader-election fields; its reconcilers are the test's)")
		}
	}
	x := st.InProcess
	if !dnsSubdomain.MatchString(x.LeaderElectionID) || len(x.LeaderElectionID) > 253 {
		v.addf(p+".inProcess.leaderElectionID", "must be a Lease name (a lowercase DNS subdomain), got %q", x.LeaderElectionID)
	}
	for i, name := range x.ReconcileControllers {
		if name == "" {
			v.addf(p+".inProcess.reconcileControllers", "entry %d is empty", i)
		}
	}
	v.validateLeaderElection(s, st, p)
}
