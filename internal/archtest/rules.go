package archtest

import "strings"

// Layer names a part of the module. Every package of the module belongs to exactly one.
type Layer string

// The module's layers. The sim root is a layer of its own so that a rule can keep its subpackages
// from importing it: the root composes them, not the other way round.
const (
	Cmd            Layer = "cmd"
	RestartsimTest Layer = "restartsimtest"
	SimRoot        Layer = "sim (root)"
	SimSub         Layer = "sim/*"
	Controller     Layer = "controller"
	FakeAWS        Layer = "fakeaws"
	Reports        Layer = "reports"
	Results        Layer = "results"
	Predict        Layer = "predict"
	Internal       Layer = "internal"
	Hack           Layer = "hack"
	Scenarios      Layer = "scenarios"
	Other          Layer = "other"
)

// LayerOf places a package, given by its path relative to the module ("" is the module root).
func LayerOf(rel string) Layer {
	top, _, nested := strings.Cut(rel, "/")
	switch {
	case top == "sim" && !nested:
		return SimRoot
	case top == "sim":
		return SimSub
	}
	for _, l := range []Layer{Cmd, RestartsimTest, Controller, FakeAWS, Reports, Results, Predict, Internal, Hack, Scenarios} {
		if string(l) == top {
			return l
		}
	}
	return Other
}

// Rule forbids packages of one layer to depend, directly or through other packages of the
// module, on packages of the layers in Never.
type Rule struct {
	From  Layer
	Never []Layer
	// ProductionOnly exempts test files: a test may use what the code it tests must not.
	ProductionOnly bool
	// Why is printed with a violation.
	Why string
}

// above is every layer that sits above controller, fakeaws, reports, results and internal.
var above = []Layer{Cmd, RestartsimTest, SimRoot, SimSub}

// Rules are the module's dependency rules.
var Rules = []Rule{
	{From: Controller, Never: append(above, Reports), Why: "the reference controller runs without the harness"},
	{From: Controller, Never: []Layer{FakeAWS}, ProductionOnly: true, Why: "the controller talks to AWS only through the AWS SDK; its tests may serve it fakeaws"},
	{From: FakeAWS, Never: append(above, Reports, Controller), Why: "fakeaws stands in for AWS and knows nothing of the harness or the controller it serves"},
	{From: Reports, Never: above, Why: "reports render results.json, never a run"},
	{From: Results, Never: []Layer{Cmd, RestartsimTest, SimRoot, SimSub, Controller, FakeAWS, Reports, Predict, Hack, Scenarios}, Why: "results is the output schema every reader shares; it imports only internal helpers"},
	{From: Predict, Never: append(above, Reports, Controller), Why: "predict reads a run's results and call log, as reports do; it never runs one"},
	{From: Internal, Never: above, Why: "internal helpers serve every layer and sit below all of them"},
	{From: SimSub, Never: []Layer{SimRoot, Cmd, RestartsimTest}, Why: "the sim root composes its subpackages, not the other way round"},
	{From: SimRoot, Never: []Layer{Cmd, RestartsimTest}, Why: "sim is driven by the CLI and by restartsimtest, never the reverse"},
	{From: RestartsimTest, Never: []Layer{Cmd}, Why: "restartsimtest drives sim for Go tests; the CLI is another front end"},
}
