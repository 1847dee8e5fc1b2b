package sim

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/reports/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// An OIDC client Secret rotated while the controller is down must reach AWS after the restart. The
// model checkpoint covers the Secret by its digest, so the group is redeployed and the run passes; a
// checkpoint blind to Secrets (the secret-blind-model mutant) skips the group, and the load balancer
// invariant catches the listener rule still authenticating with the old secret.
func TestModelCheckpointSecretBlindMutantIsCaught(t *testing.T) {
	testenv.RequireAssets(t)
	sc, err := scenario.Parse("secret-blind.yaml", []byte(header[:strings.Index(header, "fleet:")]+`fleet:
  targetGroupBindings: 2
  ingresses: {count: 6, groupSize: 2, tlsShare: 1, oidcShare: 1, servicesPerIngress: 1}
controller:
  strategies:
    - {name: reference, checkpoint: annotation, modelCheckpoint: model}
    - {name: mutant, checkpoint: annotation, modelCheckpoint: model, mutant: secret-blind-model}
timeline:
  - {action: restart, mode: crash, await: none, downtime: 3s}
  - {action: churn, kind: secretContent, services: 2}
  - {waitFor: leader}
  - {waitFor: steadyState, timeout: 30s}
`))
	if err != nil {
		t.Fatal(err)
	}
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
}
