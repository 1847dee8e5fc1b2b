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

func TestOptionsMutantDelay(t *testing.T) {
	refused := "refused" // a mutants build allows every mutant
	if MutantsBuildTag() {
		refused = ""
	}
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "without mutant", opts: Options{MutantDelay: time.Second}, wantErr: "without a mutant"},
		{name: "negative", opts: Options{Mutant: MutantSlowEarlyExit, AllowMutants: true, MutantDelay: -time.Millisecond}, wantErr: "must be positive"},
		{name: "negative without mutant", opts: Options{MutantDelay: -time.Second}, wantErr: "must be positive"},
		{name: "mutant without delay", opts: Options{Mutant: MutantDeferDrift, AllowMutants: true, MutantDelay: time.Second}, wantErr: "applies only to"},
		{name: "slow early exit", opts: Options{Mutant: MutantSlowEarlyExit, AllowMutants: true, MutantDelay: 20 * time.Millisecond}},
		{name: "slow start", opts: Options{Mutant: MutantSlowStart, AllowMutants: true, MutantDelay: 2 * time.Second}},
		{name: "slow start default", opts: Options{Mutant: MutantSlowStart, AllowMutants: true}},
		{name: "refused without allow", opts: Options{Mutant: MutantSlowStart, MutantDelay: time.Second}, wantErr: refused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
	for m, want := range map[string]time.Duration{MutantSlowEarlyExit: 5 * time.Millisecond, MutantSlowStart: time.Second, MutantDeferDrift: 0, "": 0} {
		if got := (Options{Mutant: m}).setDefaults().MutantDelay; got != want {
			t.Errorf("mutant %q: default delay %v, want %v", m, got, want)
		}
	}
	if got := (Options{Mutant: MutantSlowStart, MutantDelay: 3 * time.Second}).setDefaults().MutantDelay; got != 3*time.Second {
		t.Errorf("set delay defaulted to %v", got)
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

func TestManagerOptionsLeaderElectionTimings(t *testing.T) {
	m := ManagerOptions(Options{LeaderElection: true}, manager.Options{})
	if m.LeaseDuration != nil || m.RenewDeadline != nil || m.RetryPeriod != nil || !m.LeaderElectionReleaseOnCancel || m.Controller.EnableWarmup != nil {
		t.Fatalf("defaults: lease %v renew %v retry %v release %v warmup %v; want controller-runtime's, released, no warm-up",
			m.LeaseDuration, m.RenewDeadline, m.RetryPeriod, m.LeaderElectionReleaseOnCancel, m.Controller.EnableWarmup)
	}
	m = ManagerOptions(Options{LeaderElection: true, LeaseDuration: 5 * time.Second, RenewDeadline: 3 * time.Second,
		RetryPeriod: time.Second, KeepLeaseOnStop: true, Warmup: true}, manager.Options{})
	if *m.LeaseDuration != 5*time.Second || *m.RenewDeadline != 3*time.Second || *m.RetryPeriod != time.Second {
		t.Errorf("timings %v/%v/%v, want 5s/3s/1s", *m.LeaseDuration, *m.RenewDeadline, *m.RetryPeriod)
	}
	if m.LeaderElectionReleaseOnCancel || m.Controller.EnableWarmup == nil || !*m.Controller.EnableWarmup {
		t.Errorf("release %v warmup %v, want kept and warm", m.LeaderElectionReleaseOnCancel, m.Controller.EnableWarmup)
	}
	if err := (Options{LeaseDuration: 5 * time.Second}).Validate(); err == nil {
		t.Error("a 5 s lease against the default 10 s renew deadline validated")
	}
}
