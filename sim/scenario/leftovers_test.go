package scenario

import (
	"testing"

	"github.com/restartsim/restartsim/results"
)

// A controller that never deletes declares both what it leaves unapplied and the AWS resources it
// keeps; the scenario is valid as written.
func TestUpsertOnlyScenarioDeclaresItsLeftovers(t *testing.T) {
	t.Setenv("EXTERNAL_DNS_BINARY", "/usr/bin/true")
	s, err := Load("testdata/external-dns-upsert-only.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, th := range s.Thresholds {
		got[th.Metric] = th.Max.Value
	}
	if got[results.MetricUnappliedChanges] != 10 || got[results.MetricOrphanedResources] != 10 {
		t.Errorf("thresholds %v, want 10 unapplied changes and 10 orphaned resources declared", got)
	}
}
