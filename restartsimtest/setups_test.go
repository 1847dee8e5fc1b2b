package restartsimtest

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/sim/scenario"
)

func TestManagerSetups(t *testing.T) {
	f := func(context.Context, manager.Manager, Env) error { return nil }
	two := &scenario.Scenario{Name: "s", Controller: scenario.Controller{Strategies: []scenario.Strategy{
		{Name: "a", InProcess: &scenario.InProcess{}}, {Name: "b", InProcess: &scenario.InProcess{}}, {Name: "ref"}}}}
	ref := &scenario.Scenario{Name: "r", Controller: scenario.Controller{Strategies: []scenario.Strategy{{Name: "ref"}}}}
	for _, tc := range []struct {
		name  string
		sc    *scenario.Scenario
		def   SetupFunc
		named map[string]SetupFunc
		want  string // error substring; "" for a map of every inProcess strategy
	}{
		{"Run's setup fills both", two, f, nil, ""},
		{"a Setup option fills one", two, nil, map[string]SetupFunc{"a": f, "b": f}, ""},
		{"one left without", two, nil, map[string]SetupFunc{"a": f}, "strategy b: no setup"},
		{"a Setup for a reference strategy", two, f, map[string]SetupFunc{"ref": f}, `Setup("ref"): scenario s has no inProcess strategy`},
		{"no inProcess strategy", ref, f, nil, "declare one, e.g. controller: {strategies: [{name: mine, inProcess: {}}]}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := managerSetups(tc.sc, tc.def, tc.named)
			switch {
			case tc.want == "" && (err != nil || len(got) != 2 || got["a"] == nil || got["b"] == nil):
				t.Errorf("setups %v, err %v: want a and b", got, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestScenarioSources parses the example's file and the same text given inline; both must name
// their errors' source.
func TestScenarioSources(t *testing.T) {
	sc, err := File("testdata/targetpools.yaml").load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st := sc.Controller.Strategies[0]; st.InProcess == nil || !st.ElectsLeader(sc.Controller.Replicas) {
		t.Errorf("strategy %+v: want inProcess with leader election", st)
	}
	if _, err := YAML("kind: Scenario\nbogus: 1\n").load(t.Context()); err == nil || !strings.Contains(err.Error(), "scenario.yaml:") {
		t.Errorf("err = %v, want it to name scenario.yaml", err)
	}
	if _, err := (Scenario{}).load(t.Context()); err == nil {
		t.Error("an empty Scenario parsed")
	}
}
