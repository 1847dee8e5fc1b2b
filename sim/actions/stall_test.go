package actions

import (
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/measure"
)

// The rule gives up only after a whole window without progress while changes are unapplied: any
// moved count restarts the window, and a quiet run with nothing unapplied never stalls.
func TestStallRule(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := &stallRule{window: time.Minute}
	p := progress{made: 6, unapplied: 6, objects: 40}
	step := func(d time.Duration, p progress) bool {
		clk.Step(d)
		return s.observe(clk.Now(), p)
	}
	if step(0, p) || step(59*time.Second, p) {
		t.Fatal("stalled within the window")
	}
	// A quiet restart: the scheduler writes the pods, then a launch, then the pods run one by one.
	for _, moved := range []progress{
		{made: 6, unapplied: 6, objects: 41},
		{made: 6, unapplied: 6, objects: 41, mutations: 1},
		{made: 6, unapplied: 5, objects: 42, mutations: 1},
		{made: 7, unapplied: 6, objects: 43, mutations: 1},
	} {
		if step(59*time.Second, moved) {
			t.Fatalf("stalled on progress %+v", moved)
		}
		p = moved
	}
	if step(59*time.Second, p) {
		t.Fatal("stalled before a whole window without progress")
	}
	if !step(time.Second, p) {
		t.Fatal("not stalled after a whole window without progress")
	}
	done := &stallRule{window: time.Minute}
	quiet := progress{made: 6, objects: 50}
	if step(0, quiet) || done.observe(clk.Now(), quiet) || done.observe(clk.Now().Add(time.Hour), quiet) {
		t.Error("stalled with nothing unapplied")
	}
}

// Only AWS calls that succeeded and change something are progress: reads, refusals and dry runs
// (errors) are not.
func TestProgressOfCountsMutations(t *testing.T) {
	in := &measure.Input{Changes: make([]measure.Change, 3), Drifts: make([]measure.Drift, 1), Calls: []fakeaws.Call{
		{Operation: "DescribeInstances", Outcome: fakeaws.OutcomeOK},
		{Operation: "GetParameter", Outcome: fakeaws.OutcomeOK},
		{Operation: "ListTagsForResource", Outcome: fakeaws.OutcomeOK},
		{Operation: "RunInstances", Outcome: fakeaws.OutcomeError, ErrorCode: "DryRunOperation"},
		{Operation: "CreateFleet", Outcome: fakeaws.OutcomeThrottled},
		{Operation: "CreateFleet", Outcome: fakeaws.OutcomeOK},
		{Operation: "CreateTags", Outcome: fakeaws.OutcomeOK},
	}}
	got := progressOf(in, 2, 7)
	if got != (progress{made: 4, unapplied: 2, mutations: 2, objects: 7}) {
		t.Errorf("progress %+v, want 4 made, 2 unapplied, 2 mutations, 7 object changes", got)
	}
}
