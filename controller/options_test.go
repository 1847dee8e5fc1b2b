package controller

import (
	"strings"
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
	if o.DriftCheckInterval != DefaultDriftCheckInterval || o.AllowMutants {
		t.Fatalf("drift/mutant defaults %+v", o)
	}
	for _, bad := range []Options{{Checkpoint: "x"}, {AWS: AWSOptions{Throttle: "nope"}}, {Mutant: "x", AllowMutants: true}} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
	for _, m := range KnownMutants() {
		if err := (Options{Mutant: m, AllowMutants: true}).Validate(); err != nil {
			t.Error(err)
		}
	}
}

func TestMutantsRefusedWithoutAllow(t *testing.T) {
	for _, m := range UpstreamBugMutants() {
		err := Options{Mutant: m}.Validate()
		if MutantsBuildTag() {
			if err != nil {
				t.Errorf("%s refused in a mutants build: %v", m, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "-tags mutants") {
			t.Errorf("%s: error %v, want a refusal", m, err)
		}
	}
	want := []string{"no-clear-on-register", "skip-after-cleanup", "stale-gate-read", "defer-drift"}
	if got := UpstreamBugMutants(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("upstream-bug mutants %v, want %v", got, want)
	}
}

func TestManagerOptionsEndpointsOffByDefault(t *testing.T) {
	m := ManagerOptions(Options{}, manager.Options{})
	if m.Metrics.BindAddress != "0" || m.HealthProbeBindAddress != "" {
		t.Fatalf("library defaults bind metrics %q, health %q; want both off", m.Metrics.BindAddress, m.HealthProbeBindAddress)
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
