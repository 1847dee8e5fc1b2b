package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// A gate whose two sides overlap widely stays inconclusive at its first look and is judged again at
// the second, each look saying why.
func TestRunPrintsEveryLook(t *testing.T) {
	side := func(name string, vals ...float64) results.Strategy {
		s := results.Strategy{Name: name}
		for _, v := range vals {
			s.Runs = append(s.Runs, results.Summary{TTFMRSeconds: &v})
		}
		return s
	}
	r := results.Results{
		SchemaVersion: results.SchemaVersion,
		Scenario:      results.Scenario{Name: "ci"},
		Strategies: []results.Strategy{
			side("s-baseline", 1, 1.3, 1.6, 1.9, 2.2, 2.5, 2.8, 3.1, 1.2, 1.5, 1.8, 2.1),
			side("s", 1.1, 1.4, 1.7, 2.0, 2.3, 2.6, 2.9, 3.2, 1.3, 1.6, 1.9, 2.2),
		},
		AB: &results.AB{Strategy: "s", Baseline: "s-baseline", Candidate: "s", Alpha: 0.05, Repeats: 8, Block: 4, MaxRepeats: 12,
			Metrics: []results.ABMetric{{Metric: results.MetricTTFMR, MinEffect: 0.2, MinDelta: 0.1}}},
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(&out, path); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"look 1 of 2, 8 + 8 runs: INCONCLUSIVE", "undecided: ttfmr_seconds: noise", "look 2 of 2, 12 + 12 runs:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
