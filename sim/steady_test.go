package sim

import (
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/actions"
)

// A steady-state wait that stalled says so under STEADY never, with when and why.
func TestNeverSteadyNotesNameAStall(t *testing.T) {
	res := &results.Results{Strategies: []results.Strategy{{Name: "karpenter",
		Changes:    []results.Change{{ID: "create-pods-0001"}},
		Events:     []results.Event{{Kind: "churn", AtSeconds: 3}, {Kind: actions.EventStalled, AtSeconds: 23.9, EndSeconds: 83.9, Detail: "no progress"}},
		Invariants: results.Invariants{Passed: false}}}}
	notes := strings.Join(neverSteadyNotes(res), "\n")
	if !strings.Contains(notes, "STEADY never for karpenter: 1 of 1 changes") || !strings.Contains(notes, "stalled at 83.9s, nothing having progressed since 23.9s: no progress") {
		t.Errorf("notes:\n%s", notes)
	}
}
