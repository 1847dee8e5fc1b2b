package results

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestCensoredQuantilesValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    Quantiles
		want string // "" for valid
	}{
		{"none censored", Quantiles{Count: 3, P50: 1}, ""},
		{"a bound reaching p95", Quantiles{Count: 3, Censored: 1, P95: 900, P95Censored: true}, ""},
		{"more bounds than values", Quantiles{Count: 1, Censored: 2}, "summary.blindTime.censored"},
		{"a flag without a bound", Quantiles{Count: 2, P50Censored: true}, "a percentile is flagged censored, but no value is"},
	} {
		r := &Results{SchemaVersion: SchemaVersion, Scenario: Scenario{Name: "s"}, Strategies: []Strategy{{Name: "a", Summary: Summary{BlindTime: tc.q}}}}
		err := r.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}

func TestUnappliedRoundTripAndMetrics(t *testing.T) {
	st := Strategy{Name: "ack", Thresholds: []ThresholdResult{{Metric: MetricUnappliedChanges, Limit: 4, Value: 4, Passed: true}},
		Summary: Summary{UnappliedChanges: 4, BlindTime: Quantiles{Count: 8, Censored: 4, P50: 470, P50Censored: true, P95: 900, P95Censored: true}},
		Runs:    []Summary{{UnappliedChanges: 1}, {UnappliedChanges: 5}},
		Unapplied: []UnappliedChange{{ID: "patch-tg-0002", Kind: "patch", Object: "targetgroups/ns/tg-1", AtSeconds: 1,
			CensoredSeconds: 900, NotAppliedAfterSeconds: 895}}}
	r := &Results{Scenario: Scenario{Name: "s"}, Strategies: []Strategy{st}}
	var b bytes.Buffer
	if err := r.Encode(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"unappliedChanges": 4`, `"p50Censored": true`, `"censored": 4`, `"notAppliedAfterSeconds": 895`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("results.json lacks %s", want)
		}
	}
	got, err := Decode(b.Bytes(), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	s := &got.Strategies[0]
	if s.Unapplied[0] != st.Unapplied[0] || s.MostUnapplied() != 5 {
		t.Errorf("decoded %+v (most unapplied %d), want the change back and 5 (the worst run)", s.Unapplied, s.MostUnapplied())
	}
	if n, ok := s.UnappliedAllowed(); !ok || n != 4 {
		t.Errorf("allowed %d %v, want 4 declared", n, ok)
	}
	m, lb := s.Metrics(), s.Summary.LowerBounds()
	if m[MetricUnappliedChanges] != 4 || !lb[MetricBlindTimeP50] || !lb[MetricBlindTimeP95] || lb[MetricBlindTimeMax] {
		t.Errorf("metrics %v, lower bounds %v: want 4 unapplied, p50 and p95 bounds, max exact", m[MetricUnappliedChanges], lb)
	}
}

// Results written before unapplied changes were recorded (the shipped baseline) load with none.
func TestOldResultsHaveNoUnappliedChanges(t *testing.T) {
	data, err := os.ReadFile("../scenarios/baselines/ci-gate.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode(data, "ci-gate.json")
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Strategies {
		s := &r.Strategies[i]
		if s.MostUnapplied() != 0 || len(s.Summary.LowerBounds()) != 0 || s.Metrics()[MetricUnappliedChanges] != 0 {
			t.Errorf("%s: unapplied %d, bounds %v", s.Name, s.MostUnapplied(), s.Summary.LowerBounds())
		}
	}
}
