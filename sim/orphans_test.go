package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/scenario"
)

// externalDNSUpsertOnly is a run of a controller that never deletes (external-dns under
// --policy=upsert-only): ten deleted Services left their records in Route53.
func externalDNSUpsertOnly() []*strategyOutcome {
	inv := results.Invariants{Orphaned: map[string]int{"route53RecordSet": 10}}
	for i := range 10 {
		inv.Violations = append(inv.Violations, results.Violation{TGB: fmt.Sprintf("services/ns/svc-%d", i), Kind: results.ViolationOrphan})
	}
	return []*strategyOutcome{{name: "external-dns", out: &measure.Output{}, invariants: inv}}
}

// Leftovers the scenario declares (a threshold on orphaned_resources) are judged by it, as declared
// unapplied changes are; undeclared, they fail the end-state check in the words of their kind.
func TestDeclaredOrphansAreJudgedByTheirThreshold(t *testing.T) {
	st := scenario.Strategy{Name: "external-dns"}
	for _, tc := range []struct {
		name       string
		thresholds []scenario.Threshold
		kind, says string // the violation ("" for none) and what its details say
	}{
		{"undeclared", nil, results.ViolationInvariant, "external-dns: 0 missing, 10 orphaned records;"},
		{"declared up to 10", []scenario.Threshold{{Metric: results.MetricOrphanedResources, Max: scenario.Number{Value: 10}}}, "", ""},
		{"declared up to 9", []scenario.Threshold{{Metric: results.MetricOrphanedResources, Max: scenario.Number{Value: 9}}},
			results.ViolationThreshold, "external-dns: orphaned_resources = 10 > 9"},
		{"declared for another strategy", []scenario.Threshold{{Metric: results.MetricOrphanedResources, Max: scenario.Number{Value: 10}, Strategies: []string{"other"}}},
			results.ViolationInvariant, "10 orphaned records"},
		{"invariant_violations max 0 beside the declaration", []scenario.Threshold{{Metric: results.MetricInvariantViolations},
			{Metric: results.MetricOrphanedResources, Max: scenario.Number{Value: 10}}}, "", ""},
	} {
		sc := &scenario.Scenario{Thresholds: tc.thresholds}
		runs := externalDNSUpsertOnly()
		expectOrphans(sc, st.Name, runs)
		rs, _ := combine(st, runs)
		res := &results.Results{Strategies: []results.Strategy{rs}}
		evaluateThresholds(sc, res)
		err := verdict(res)
		if wantViolation(t, tc.name, err, tc.kind) && (!strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "stale targets")) {
			t.Errorf("%s: %v, want it to say %q, and nothing of stale targets", tc.name, err, tc.says)
		}
	}
}
