package restartsimtest_test

import (
	"testing"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/restartsimtest"
)

// TestTargetPoolRestart is the package's example: the controller of example_controller_test.go
// under testdata/targetpools.yaml (20 pools, a crash, three pools changed while no instance runs).
// Run fails the test for a breached threshold (no invariant violated, blind time at most 30 s)
// with its numbers; the results allow more assertions.
func TestTargetPoolRestart(t *testing.T) {
	testenv.RequireAssets(t) // skips without kube-apiserver and etcd; a controller's own test needs no such guard
	res := restartsimtest.Run(t, restartsimtest.File("testdata/targetpools.yaml"), setupPools)
	s, ok := res.Summary("mine")
	if !ok {
		t.Fatalf("no results for strategy mine: %+v", res.Results.Strategies)
	}
	// The three changes waited through the crash, the Lease (3 s) and the replacement's start.
	if s.BlindTime.Count != 3 || s.BlindTime.P50 < 1 {
		t.Errorf("blind time %+v: want the 3 changes, each waiting through the downtime and the Lease", s.BlindTime)
	}
	if s.TTFMRSeconds == nil || s.AWSCalls["ModifyTargetGroup"] < 3 {
		t.Errorf("TTFMR %v, calls %v: want the changes applied by ModifyTargetGroup", s.TTFMRSeconds, s.AWSCalls)
	}
	// The signals taken from the manager itself: its cache's sync and controller-runtime's metrics.
	if s.CacheSyncSeconds == nil {
		t.Errorf("no cache sync time: want it from the replacement's manager")
	}
	if s.Work == nil || s.Work.Source != "controller-runtime" {
		t.Errorf("restart work %+v: want controller-runtime's reconcile metrics", s.Work)
	}
}
