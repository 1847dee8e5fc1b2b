package sim

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// ingressScenario parses the test header's scenario with two TGBs, the given fleet.ingresses and
// what follows it.
func ingressScenario(t *testing.T, name, ingressesAndRest string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse(name, []byte(header[:strings.Index(header, "fleet:")]+"fleet:\n  targetGroupBindings: 2\n  ingresses: "+ingressesAndRest))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// An OIDC client Secret rotated while the controller is down must reach AWS after the restart. The
// model checkpoint covers the Secret by its digest, so the group is redeployed and the run passes; a
// checkpoint blind to Secrets (the secret-blind-model mutant) skips the group, and the load balancer
// invariant catches the listener rule still authenticating with the old secret.
func TestModelCheckpointSecretBlindMutantIsCaught(t *testing.T) {
	testenv.RequireAssets(t)
	sc := ingressScenario(t, "secret-blind.yaml", `{count: 6, groupSize: 2, tlsShare: 1, oidcShare: 1, servicesPerIngress: 1}
controller:
  strategies:
    - {name: reference, checkpoint: annotation, modelCheckpoint: model}
    - {name: mutant, checkpoint: annotation, modelCheckpoint: model, mutant: secret-blind-model}
timeline:
  - {action: restart, mode: crash, await: none, downtime: 3s}
  - {action: churn, kind: secretContent, services: 2}
  - {waitFor: leader}
  - {waitFor: steadyState, timeout: 30s}
`)
	run := func(strategy string) (*Report, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		return Run(ctx, Options{Scenario: sc, Strategies: []string{strategy}, OutDir: t.TempDir(), Stdout: io.Discard, Progress: io.Discard, NoReport: true})
	}
	if _, err := run("reference"); err != nil {
		t.Fatalf("reference: %v", err)
	}
	rep, err := run("mutant")
	var v *results.ViolationError
	if !errors.As(err, &v) || v.Kind != results.ViolationInvariant {
		t.Fatalf("mutant: err = %v, want an invariant violation", err)
	}
	st := rep.Results.Strategies[0]
	stale := 0
	for _, viol := range st.Invariants.Violations {
		if viol.Kind == "oidc-secret-stale" {
			stale++
		}
	}
	if stale == 0 {
		t.Fatalf("mutant: violations %+v, want oidc-secret-stale", st.Invariants.Violations)
	}
	for _, c := range st.Changes {
		if rotated := c.Kind == workload.ChangeSecretContent; rotated != (c.AppliedSeconds == nil) {
			t.Errorf("mutant: change %s (%s) applied at %v; want only the rotated secrets never applied", c.ID, c.Ingress, c.AppliedSeconds)
		}
	}
}

// Every kind of Ingress-side change made while the controller is down is one of the restart's:
// each is applied, seen in AWS and timed, for both strategies, also where two changes hit the
// same Ingress (a later one can move the facts an earlier one expects).
func TestIngressChangesMadeWhileDownAreTimed(t *testing.T) {
	testenv.RequireAssets(t)
	sc := ingressScenario(t, "ingress-changes.yaml", `{count: 4, groupSize: 2, tlsShare: 1, oidcShare: 1, servicesPerIngress: 1}
controller:
  strategies:
    - {name: none, checkpoint: annotation, modelCheckpoint: none}
    - {name: model, checkpoint: annotation, modelCheckpoint: model}
timeline:
  - {action: restart, mode: crash, await: none, downtime: 3s}
  - {action: churn, kind: ingressRule, services: 2}
  - {action: churn, kind: ingressAnnotation, services: 2}
  - {action: churn, kind: backendPort, services: 2}
  - {action: churn, kind: secretContent, services: 2}
  - {waitFor: leader}
  - {waitFor: steadyState, timeout: 60s}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Stdout: io.Discard, Progress: io.Discard, NoReport: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Results.Strategies {
		if len(s.Changes) != 8 || s.Summary.BlindTimeChanges != 8 || s.Summary.BlindTime.Count != 8 || s.Summary.SteadyStateSeconds == nil {
			t.Errorf("%s: changes %+v, blind time %+v of %d changes, steady %v; want all 8 applied, all the restart's",
				s.Name, s.Changes, s.Summary.BlindTime, s.Summary.BlindTimeChanges, s.Summary.SteadyStateSeconds)
		}
		for _, c := range s.Changes {
			if c.Ingress == "" || c.LatencySeconds == nil || *c.LatencySeconds < 0 {
				t.Errorf("%s: change %+v, want an Ingress and a latency", s.Name, c)
			}
		}
	}
}
