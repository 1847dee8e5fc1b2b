package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// ackLike is a run of a controller that applied 4 of 8 changes (as ACK never applies a
// TargetGroup's tag change), with its invariants holding.
func ackLike(thresholds ...results.ThresholdResult) *results.Results {
	applied := 30.0
	st := results.Strategy{Name: "ack", Invariants: results.Invariants{Passed: true}, Thresholds: thresholds,
		Summary: results.Summary{UnappliedChanges: 4, BlindTimeChanges: 8,
			BlindTime: results.Quantiles{Count: 8, Censored: 4, P50: 470, P50Censored: true, P95: 900, P95Censored: true, Max: 900, MaxCensored: true}}}
	for i := range 8 {
		c := results.Change{ID: "patch-targetgroups-000" + string(rune('1'+i)), Kind: "patch"}
		if i%2 == 0 {
			c.AppliedSeconds = &applied
		} else {
			st.Unapplied = append(st.Unapplied, results.UnappliedChange{ID: c.ID, Kind: "patch", Object: "targetgroups/ns/tg-" + string(rune('1'+i)),
				CensoredSeconds: 900, NotAppliedAfterSeconds: 900})
		}
		st.Changes = append(st.Changes, c)
	}
	return &results.Results{Strategies: []results.Strategy{st}}
}

func TestUnappliedChangesAreAFindingUnlessExpected(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *results.Results
		kind string // "" for no violation
	}{
		{"undeclared: a finding", ackLike(), results.ViolationUnapplied},
		{"declared up to 4: passes", ackLike(results.ThresholdResult{Metric: results.MetricUnappliedChanges, Limit: 4, Value: 4, Passed: true}), ""},
		{"declared up to 2: the threshold is breached", ackLike(results.ThresholdResult{Metric: results.MetricUnappliedChanges, Limit: 2, Value: 4}), results.ViolationThreshold},
	} {
		err := verdict(tc.res)
		if wantViolation(t, tc.name, err, tc.kind) && tc.kind == results.ViolationUnapplied &&
			!strings.Contains(err.Error(), "ack: 4 changes never applied (patch-targetgroups-0002 targetgroups/ns/tg-2") {
			t.Errorf("%s: %v, want the strategy and its changes named", tc.name, err)
		}
	}
	// Invariants come first: their exit code is the same, their details say more.
	res := ackLike()
	res.Strategies[0].Invariants = results.Invariants{Violations: []results.Violation{{TGB: "ns/a", Kind: "missing-target"}}}
	var v *results.ViolationError
	if err := verdict(res); !errors.As(err, &v) || v.Kind != results.ViolationInvariant {
		t.Errorf("invariants and unapplied changes: %v, want the invariant violation", err)
	}
}

// The summary prints censored blind times as lower bounds and names every unapplied change with how
// long it waited, and what that does to the exit code.
func TestSummaryNamesUnappliedChanges(t *testing.T) {
	var b strings.Builder
	printSummary(&b, ackLike(), "results.json")
	out := b.String()
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"ack > 470.0s (4/8) > 900.0s",
		"UNAPPLIED for ack: 4 of 8 changes still not applied when the run ended:",
		"patch-targetgroups-0002 targetgroups/ns/tg-2 (patch, made at 0.0s) not applied after 900.0s",
		"a controller finding (exit 3)",
		"STEADY never for ack: 4 of 8 changes were never seen applied in AWS; AWS does not show them at the end: see UNAPPLIED.",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "the run passes (exit 0)") {
		t.Errorf("the summary says the run passes:\n%s", out)
	}
	b.Reset()
	printSummary(&b, ackLike(results.ThresholdResult{Metric: results.MetricUnappliedChanges, Limit: 4, Value: 4, Passed: true}), "results.json")
	if !strings.Contains(b.String(), "the scenario expects up to 4 (threshold on unapplied_changes)") {
		t.Errorf("declared: the summary does not say so:\n%s", b.String())
	}
}

// wantViolation checks that err is a violation of kind (none for ""), and reports whether it is one
// whose details the caller may check further.
func wantViolation(t *testing.T, name string, err error, kind string) bool {
	t.Helper()
	var v *results.ViolationError
	switch {
	case kind == "" && err != nil:
		t.Errorf("%s: %v, want none", name, err)
	case kind != "" && (!errors.As(err, &v) || v.Kind != kind):
		t.Errorf("%s: %v, want a %s violation", name, err, kind)
	default:
		return kind != ""
	}
	return false
}
