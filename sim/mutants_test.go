package sim

import (
	"slices"
	"testing"

	"github.com/restartsim/restartsim/controller"
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
