package reports

import (
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// A run whose changes are not target changes (e.g. Ingress inputs) has no blind time to rank by;
// the opening paragraph says so and gives each strategy's steady state instead.
func TestVerdictWithoutTargetChangesGivesSteadyStates(t *testing.T) {
	none, model := 175.4, 10.4
	r := &results.Results{Strategies: []results.Strategy{
		{Name: "none", Summary: results.Summary{SteadyStateSeconds: &none}},
		{Name: "model", Summary: results.Summary{SteadyStateSeconds: &model}},
	}}
	got := string(verdict(r, nil, nil))
	for _, want := range []string{"No strategy applied a change the harness times", "none 175.4 s", "model 10.4 s"} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict %q lacks %q", got, want)
		}
	}
}
