package controller

import (
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"
)

func TestOptionsDefaultsAndValidate(t *testing.T) {
	o := Options{}.setDefaults()
	if o.Checkpoint != CheckpointAnnotation || o.DeferralDelay != 30*time.Minute || o.DeferralJitter != 15*time.Minute ||
		o.RequeueDuration != 15*time.Second || o.TargetHealthCacheTTL != 5*time.Minute || o.SecurityGroupCacheTTL != 10*time.Minute ||
		o.SyncPeriod != 10*time.Hour || o.MaxConcurrentReconciles != 3 || o.AWS.MaxAttempts != 10 || o.Clock == nil || o.MetricsRegistry == nil {
		t.Fatalf("defaults %+v", o)
	}
	for _, bad := range []Options{{Checkpoint: "x"}, {AWS: AWSOptions{Throttle: "nope"}}, {Mutant: "x"}} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
	for _, m := range KnownMutants() {
		if err := (Options{Mutant: m}).Validate(); err != nil {
			t.Error(err)
		}
	}
}

func TestManagerOptions(t *testing.T) {
	m := ManagerOptions(Options{PriorityQueue: true, LeaderElection: true, Namespaces: []string{"a"}}, manager.Options{})
	if m.Controller.UsePriorityQueue == nil || !*m.Controller.UsePriorityQueue || !*m.Controller.SkipNameValidation {
		t.Fatal("priority queue / name validation")
	}
	if !m.LeaderElection || m.LeaderElectionID != DefaultLeaderElectionID || m.LeaderElectionResourceLock != "leases" {
		t.Fatal("leader election")
	}
	if *m.Cache.SyncPeriod != DefaultSyncPeriod || len(m.Cache.DefaultNamespaces) != 1 || m.Metrics.BindAddress != "0" {
		t.Fatalf("cache/metrics %+v", m)
	}
	if m = ManagerOptions(Options{}, manager.Options{}); *m.Controller.UsePriorityQueue {
		t.Fatal("priority queue on by default in the library")
	}
}
