package scenario

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/restartsim/restartsim/sim/scenario/internal/knobfields"
)

// strategyOwnFields are the Strategy fields that are not knobs of the reference controller: what
// the harness makes of a strategy (its name, which controller converges the fleet, where and how it
// runs). A new Strategy field is either a knob (controller.Knobs) or listed here.
var strategyOwnFields = []string{"name", "convergeWith", "binary", "args", "external", "inProcess"}

// The knob fields of Strategy and knobs_gen.go are what controller.Knobs gives now.
func TestKnobFieldsGenerated(t *testing.T) {
	src, err := os.ReadFile(knobfields.File)
	if err != nil {
		t.Fatal(err)
	}
	want, err := knobfields.Rewrite(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, want) {
		t.Errorf("%s: the Strategy fields differ from controller.Knobs: run go generate ./sim/scenario (make schema)", knobfields.File)
	}
	checks, err := knobfields.Checks()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(knobfields.ChecksFile); err != nil || !bytes.Equal(got, checks) {
		t.Errorf("%s differs from controller.Knobs (%v): run go generate ./sim/scenario (make schema)", knobfields.ChecksFile, err)
	}
}

// Every field of Strategy is a knob or the strategy's own.
func TestStrategyFieldsAreKnobs(t *testing.T) {
	for name := range strategyFields {
		isKnob := slices.ContainsFunc(knobs, func(k knob) bool { return k.field == name })
		if isKnob == slices.Contains(strategyOwnFields, name) {
			t.Errorf("strategy field %s: a knob %v, the strategy's own %v; want exactly one", name, isKnob, !isKnob)
		}
	}
	for _, k := range knobs {
		if _, ok := strategyFields[k.field]; !ok {
			t.Errorf("knob %s: no Strategy field", k.field)
		}
	}
}
