package sim_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim"
	"github.com/restartsim/restartsim/sim/scenario"
)

// Run a scenario file and tell a finding about the controller (a violation) from a failed run.
func ExampleRun() {
	sc, err := scenario.Load("scenarios/quickstart.yaml")
	if err != nil {
		fmt.Println(err) // file:line:column: field.path: problem
		return
	}
	rep, err := sim.Run(context.Background(), sim.Options{Scenario: sc, ScenarioFile: "scenarios/quickstart.yaml"})
	var v *results.ViolationError
	switch {
	case errors.As(err, &v):
		fmt.Println("controller broke a", v.Kind, "- see", rep.Dir)
	case err != nil:
		fmt.Println("run failed:", err)
	default:
		fmt.Println("results in", rep.Dir)
	}
}
