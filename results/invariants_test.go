package results

import (
	"encoding/json"
	"testing"
)

// Each count is said in the words of its kind: a binding's targets, an object group's objects, and
// the AWS resources deleted objects left, by their kind.
func TestInvariantsDescribeEachKindInItsWords(t *testing.T) {
	for _, tc := range []struct {
		inv  Invariants
		want string
	}{
		{Invariants{Missing: 2, Stale: 3}, "2 missing, 3 stale targets"},
		{Invariants{Orphaned: map[string]int{"route53RecordSet": 10}}, "0 missing, 10 orphaned records"},
		{Invariants{Stale: 1, ObjectsFailing: 2, Orphaned: map[string]int{"targetGroup": 1, "route53HostedZone": 2}},
			"0 missing, 1 stale targets, 2 objects failing their invariant, 2 orphaned hosted zones, 1 orphaned target groups"},
		{Invariants{Orphaned: map[string]int{"loadBalancer": 4}, OrphansExpected: true}, "0 missing, 4 orphaned load balancers (expected)"},
	} {
		if got := tc.inv.Describe(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.inv, got, tc.want)
		}
	}
}

// Declared orphans leave the violations and no longer fail the check; anything else still does.
func TestExpectOrphansKeepsOtherViolations(t *testing.T) {
	inv := Invariants{Orphaned: map[string]int{"route53RecordSet": 1}, Violations: []Violation{{TGB: "services/ns/svc-1", Kind: ViolationOrphan}}}
	inv.ExpectOrphans()
	if !inv.Passed || len(inv.Violations) != 0 || inv.OrphanCount() != 1 {
		t.Errorf("orphans only: %+v, want passed with the orphan still counted", inv)
	}
	inv = Invariants{Missing: 1, Orphaned: map[string]int{"route53RecordSet": 1},
		Violations: []Violation{{Kind: ViolationOrphan}, {TGB: "services/ns/svc-2", Kind: "object-not-ready"}}}
	inv.ExpectOrphans()
	if inv.Passed || len(inv.Violations) != 1 || inv.Violations[0].Kind != "object-not-ready" {
		t.Errorf("an orphan and a missing object: %+v, want failed on the missing one", inv)
	}
}

// Results written when the step was the first ELBv2 call, as firstReconcileSeconds, still read.
func TestRestartPhasesReadTheFirstReconcileOfOldResults(t *testing.T) {
	var ph RestartPhases
	if err := json.Unmarshal([]byte(`{"mode": "crash", "stoppedSeconds": 1, "firstReconcileSeconds": 3.5}`), &ph); err != nil {
		t.Fatal(err)
	}
	if ph.Mode != "crash" || ph.StoppedSeconds != 1 || ph.FirstAWSCallSeconds == nil || *ph.FirstAWSCallSeconds != 3.5 || ph.FirstAWSCallService != "elbv2" {
		t.Errorf("old phases read as %+v, want the first AWS call at 3.5 s, of elbv2", ph)
	}
	if err := json.Unmarshal([]byte(`{"firstAWSCallSeconds": 2, "firstAWSCallService": "route53"}`), &ph); err != nil || *ph.FirstAWSCallSeconds != 2 || ph.FirstAWSCallService != "route53" {
		t.Errorf("new phases read as %+v (%v)", ph, err)
	}
}
