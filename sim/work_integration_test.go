package sim

import (
	"encoding/json"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// workScenario restarts the reference controller on a small fleet and changes three services once
// the replacement has had time to start reconciling: scrapes every 50 ms of wall time see its
// work before the first meaningful mutation.
const workScenario = `apiVersion: restartsim/v1
kind: Scenario
name: it-work
seed: 5
timeScale: 2
aws: {profile: aws-documented, warmupProfile: unlimited, healthyAfter: 2s, deregistrationDelay: 10s}
fleet: {targetGroupBindings: 8, podsPerService: 2, nodes: 3}
timeline:
  - {action: restart, mode: crash}
  - {after: 2s, action: churn, kind: mixed, services: 3}
  - {waitFor: steadyState, timeout: 2m}
`

// The replacement's reconcile work is read from its own registry: without checkpoints it
// reconciles every binding before its queue drains; with them, each unchanged binding early-exits.
func TestRestartWorkOfTheReferenceController(t *testing.T) {
	for _, tc := range []struct {
		name, strategy string
		earlyExits     bool
	}{
		{"no-checkpoint", "{name: none, checkpoint: none}", false},
		{"checkpoint", "{name: ckpt, checkpoint: annotation, deferralDelay: 30m, deferralJitter: 1m}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := runTiny(t, workScenario+"controller:\n  strategies: ["+tc.strategy+"]\n")
			s := r.out.Summary
			w := s.Work
			if w == nil {
				t.Fatal("no work recorded")
			}
			bindings := r.out.Summary.Objects.TGBs
			t.Logf("work %s; machine %+v", describeWork(w), s.Machine)
			if w.Source != "reference" || w.ReconcileSecondsBeforeFirstMeaningful == nil || *w.ReconcileSecondsBeforeFirstMeaningful <= 0 ||
				w.ReconcilesBeforeFirstMeaningful == nil || *w.ReconcilesBeforeFirstMeaningful <= 0 {
				t.Fatalf("before the first meaningful mutation: %s", describeWork(w))
			}
			if w.ReconcileSecondsUntilDrained == nil || *w.ReconcileSecondsUntilDrained <= 0 || w.ReconcilesUntilDrained == nil {
				t.Fatalf("until drained: %s", describeWork(w))
			}
			if !tc.earlyExits && *w.ReconcilesUntilDrained < bindings {
				t.Fatalf("reconciles until drained = %d, want at least the %d bindings", *w.ReconcilesUntilDrained, bindings)
			}
			if got := w.EarlyExitSecondsPerBinding != nil && *w.EarlyExitSecondsPerBinding > 0; got != tc.earlyExits {
				t.Fatalf("early exit per binding: %+v, want measured = %v", describeWork(w), tc.earlyExits)
			}
			m := s.Metrics()
			for _, name := range []string{"reconcile_seconds_before_first_meaningful", "reconciles_before_first_meaningful",
				"reconcile_seconds_until_drained", "reconciles_until_drained"} {
				if m[name] <= 0 {
					t.Errorf("metric %s = %v, want > 0", name, m[name])
				}
			}
			if s.Machine == nil || s.Machine.SchedDelay.Count == 0 || s.Machine.CPUs == 0 {
				t.Fatalf("machine: %+v", s.Machine)
			}
		})
	}
}

// describeWork prints the record's figures, not its pointers.
func describeWork(w *results.RestartWork) string {
	b, err := json.Marshal(w)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
