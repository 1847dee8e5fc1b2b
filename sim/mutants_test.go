package sim

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// The scenario parser keeps its own copy of the mutant names so it does not import the controller.
func TestScenarioMutantsMatchController(t *testing.T) {
	want := slices.Sorted(slices.Values(controller.KnownMutants()))
	got := slices.Sorted(slices.Values(scenario.Mutants))
	if !slices.Equal(got, want) {
		t.Fatalf("scenario.Mutants = %v, controller.KnownMutants() = %v", got, want)
	}
}

// mutantScenarios loads scenarios/mutants/*.yaml: each has a strategy "reference" and a strategy
// "mutant" that differs from it only by its mutant.
func mutantScenarios(t *testing.T) map[string]*scenario.Scenario {
	t.Helper()
	files, err := filepath.Glob("../scenarios/mutants/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*scenario.Scenario{}
	for _, f := range files {
		sc, err := scenario.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		names := sc.StrategyNames()
		if !slices.Equal(names, []string{"reference", "mutant"}) {
			t.Fatalf("%s: strategies %v, want [reference mutant]", f, names)
		}
		ref, mut := sc.Controller.Strategies[0], sc.Controller.Strategies[1]
		if ref.Mutant != "" || mut.Mutant == "" {
			t.Fatalf("%s: reference has mutant %q, mutant has %q", f, ref.Mutant, mut.Mutant)
		}
		ref.Name, ref.Mutant = mut.Name, mut.Mutant
		if strategyConfig(ref)["mutant"] != mut.Mutant || !slices.Equal(mapKeys(strategyConfig(ref)), mapKeys(strategyConfig(mut))) ||
			strings.Join(mapVals(strategyConfig(ref)), ",") != strings.Join(mapVals(strategyConfig(mut)), ",") {
			t.Fatalf("%s: the mutant strategy differs from the reference by more than its mutant", f)
		}
		if want := strings.TrimSuffix(filepath.Base(f), ".yaml"); want != mut.Mutant {
			t.Fatalf("%s: file name does not match its mutant %q", f, mut.Mutant)
		}
		out[mut.Mutant] = sc
	}
	return out
}

func mapKeys(m map[string]string) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

func mapVals(m map[string]string) []string {
	var out []string
	for _, k := range mapKeys(m) {
		out = append(out, m[k])
	}
	return out
}

// Every upstream-bug mutant has a shipped scenario.
func TestMutantScenariosCoverUpstreamBugs(t *testing.T) {
	got := sortedMapKeys(mutantScenarios(t))
	want := slices.Sorted(slices.Values(controller.UpstreamBugMutants()))
	if !slices.Equal(got, want) {
		t.Fatalf("scenarios/mutants cover %v, want %v", got, want)
	}
}

// TestMutationScore is the harness's own mutation score: every shipped mutant scenario passes with
// the reference controller and is caught (invariant violation or threshold breach, exit 3 or 4)
// with the mutant.
func TestMutationScore(t *testing.T) {
	testenv.RequireAssets(t)
	scs := mutantScenarios(t)
	caught := 0
	for _, m := range sortedMapKeys(scs) {
		sc := scs[m]
		t.Run(m, func(t *testing.T) {
			run := func(strategy string) error {
				ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
				defer cancel()
				_, err := Run(ctx, Options{Scenario: sc, Strategies: []string{strategy}, OutDir: t.TempDir(),
					Stdout: io.Discard, Progress: io.Discard, NoReport: true})
				return err
			}
			if err := run("reference"); err != nil {
				t.Fatalf("reference: %v", err)
			}
			err := run("mutant")
			var v *results.ViolationError
			if !errors.As(err, &v) {
				t.Fatalf("mutant %s not caught: err = %v", m, err)
			}
			t.Logf("mutant %s caught: %v", m, v)
			caught++
		})
	}
	t.Logf("mutation score: %d/%d", caught, len(scs))
	if caught != len(scs) {
		t.Errorf("mutation score %d/%d", caught, len(scs))
	}
}
