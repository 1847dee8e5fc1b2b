package sim

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
)

func TestCheckManagerSetups(t *testing.T) {
	setup := func(context.Context, manager.Manager, sut.ManagerEnv) error { return nil }
	mixed := &scenario.Scenario{Name: "s", Controller: scenario.Controller{Strategies: []scenario.Strategy{
		{Name: "mine", InProcess: &scenario.InProcess{}}, {Name: "checkpoint"}}}}
	for _, tc := range []struct {
		name   string
		setups map[string]sut.ManagerSetup
		want   string
	}{
		{"every inProcess strategy has one", map[string]sut.ManagerSetup{"mine": setup}, ""},
		{"none: the CLI", nil, "strategy mine: inProcess runs a controller-runtime manager that a Go test fills"},
		{"a reference strategy's", map[string]sut.ManagerSetup{"mine": setup, "checkpoint": setup}, "manager setups for [checkpoint]: no inProcess strategy of that name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkManagerSetups(newRunConfig(Options{Scenario: mixed, ManagerSetups: tc.setups}), mixed)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
