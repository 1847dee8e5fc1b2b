package reports

import (
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// ackRun is a controller that applied 4 of its 8 changes (the 4 others censored at 900 s), beside
// one that applied all of its changes more slowly; clean is left out when not wanted.
func ackRun(withClean bool, declared bool) *results.Results {
	ack := results.Strategy{Name: "ack", Invariants: results.Invariants{Passed: true},
		Summary: results.Summary{UnappliedChanges: 4, BlindTimeChanges: 8,
			BlindTime: results.Quantiles{Count: 8, Censored: 4, P50: 470, P50Censored: true, P95: 900, P95Censored: true, Max: 900, MaxCensored: true}}}
	for i := range 8 {
		id := "patch-tg-000" + string(rune('1'+i))
		ack.Changes = append(ack.Changes, results.Change{ID: id, Kind: "patch", Object: "targetgroups/ns/tg"})
		if i >= 4 {
			ack.Unapplied = append(ack.Unapplied, results.UnappliedChange{ID: id, Kind: "patch", Object: "targetgroups/ns/tg",
				CensoredSeconds: 900, NotAppliedAfterSeconds: 900 - float64(i)})
		}
	}
	if declared {
		ack.Thresholds = []results.ThresholdResult{{Metric: results.MetricUnappliedChanges, Limit: 4, Value: 4, Passed: true}}
	}
	r := &results.Results{Strategies: []results.Strategy{ack}}
	if withClean {
		r.Strategies = append(r.Strategies, results.Strategy{Name: "checkpoint", Invariants: results.Invariants{Passed: true},
			Summary: results.Summary{BlindTimeChanges: 8, BlindTime: results.Quantiles{Count: 8, P50: 600, P95: 700, Max: 700}}})
	}
	return r
}

// The headline never names a strategy fastest, nor says the end state was correct, on the strength
// of changes that never landed; censored figures read "> v".
func TestVerdictWithUnappliedChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		r       *results.Results
		want    []string
		wantNot []string
	}{
		{name: "alone", r: ackRun(false, false),
			want: []string{"No strategy applied every change within the run. <b>ack</b>", "after <b>&gt; 470 s</b>", "4 of them never applied",
				"p95 &gt; 900 s", "<b>ack</b> left 4 of 8 changes unapplied (not applied after 893 s), <span class=\"fail\">a finding</span>",
				"invariants held, but not every change reached AWS"},
			wantNot: []string{"recovers fastest", "the end state was correct"}},
		{name: "beside a slower one that applied everything", r: ackRun(true, false),
			want:    []string{"<b>checkpoint</b> recovers fastest from the restart", "against &gt; 470 s for ack", "<b>ack</b> left 4 of 8"},
			wantNot: []string{"<b>ack</b> recovers fastest", "the end state was correct"}},
		{name: "declared", r: ackRun(false, true), want: []string{"as the scenario expects (up to 4)"}, wantNot: []string{"a finding", "recovers fastest"}},
	} {
		got := string(verdict(tc.r, nil, nil))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: verdict %q lacks %q", tc.name, got, w)
			}
		}
		for _, w := range tc.wantNot {
			if strings.Contains(got, w) {
				t.Errorf("%s: verdict %q has %q", tc.name, got, w)
			}
		}
	}
}

func TestChangeTableMarksUnapplied(t *testing.T) {
	tabs := changeTables(ackRun(false, false))
	if len(tabs) != 1 || tabs[0].Unapplied != 4 || tabs[0].Expected {
		t.Fatalf("tables %+v, want 4 unapplied, not expected", tabs)
	}
	rows := tabs[0].Rows
	if r := rows[7]; !r.Unapplied || r.Applied != "not applied by the end (900 s)" || r.Latency != "> 893 s" {
		t.Errorf("row %+v, want not applied by the end, latency > 893 s", r)
	}
	if rows[0].Unapplied {
		t.Errorf("row %+v: marked unapplied", rows[0])
	}
	if c := blindCell(ackRun(false, false).Strategies[0].Summary); c != "> 470 s / > 900 s (4 of 8 applied)" {
		t.Errorf("blind cell %q", c)
	}
}
