package sim

import (
	"testing"

	"github.com/restartsim/restartsim/reports/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// Thresholds pass at or under their limit, fail over it, fail for a metric of an event that never
// happened, and apply only to the strategies they name.
func TestEvaluateThresholds(t *testing.T) {
	ttfmr := 2.0
	res := &results.Results{Strategies: []results.Strategy{
		{Name: "a", Summary: results.Summary{TTFMRSeconds: &ttfmr}},
		{Name: "b"}, // no restart measured: no TTFMR
	}}
	max := func(v float64) scenario.Number { return scenario.Number{Value: v, Duration: true} }
	sc := &scenario.Scenario{Thresholds: []scenario.Threshold{
		{Metric: results.MetricTTFMR, Max: max(2)},
		{Metric: results.MetricTTFMR, Max: max(1.5), Strategies: []string{"a"}},
	}}
	evaluateThresholds(sc, res)
	got := func(i int) []bool {
		var out []bool
		for _, th := range res.Strategies[i].Thresholds {
			out = append(out, th.Passed)
		}
		return out
	}
	if a := got(0); len(a) != 2 || !a[0] || a[1] {
		t.Errorf("strategy a (TTFMR 2 s): thresholds %+v, want [pass at the 2 s limit, fail over 1.5 s]", res.Strategies[0].Thresholds)
	}
	if b := got(1); len(b) != 1 || b[0] {
		t.Errorf("strategy b (no TTFMR): thresholds %+v, want one failed", res.Strategies[1].Thresholds)
	}
	if err := verdict(res); !results.IsViolation(err) {
		t.Errorf("verdict = %v, want a threshold violation", err)
	}
}
