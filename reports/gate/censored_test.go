package gate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

// censor makes the strategy's blind-time p95 a lower bound of v: a change it never applied.
func censor(s *results.Strategy, v float64) {
	q := &s.Summary.BlindTime
	q.P95, q.P95Censored, q.Max, q.MaxCensored, q.Censored = v, true, v, true, 1
}

// A censored percentile is at least its value: it never passes an absolute limit or a regression
// limit from an exact baseline; two bounds (both runs left the change unapplied) compare; a
// baseline bound only widens the true limit, so an exact figure under the bound's limit passes.
func TestCheckRuleJudgesLowerBounds(t *testing.T) {
	maxReg, limit := 0.5, 1000.0
	for _, tc := range []struct {
		name            string
		cur, base       float64
		curCen, baseCen bool
		max             *float64
		want            gate.Verdict
		reason          string
	}{
		{name: "exact, as before", cur: 100, base: 100, want: gate.Pass},
		{name: "a bound under the absolute limit fails", cur: 900, curCen: true, max: &limit, want: gate.Fail, reason: "at least 900, which cannot be shown within the limit"},
		{name: "a bound over the baseline's limit fails", cur: 900, curCen: true, base: 100, want: gate.Fail, reason: "at least 900 (a change never applied)"},
		{name: "a bound under an exact baseline's limit fails", cur: 100, curCen: true, base: 100, want: gate.Fail, reason: "cannot be shown within the limit"},
		{name: "both bounds: they compare", cur: 900, curCen: true, base: 900, baseCen: true, want: gate.Pass},
		{name: "both bounds, with an absolute limit: fails", cur: 900, curCen: true, base: 900, baseCen: true, max: &limit, want: gate.Fail},
		{name: "exact under a bound's limit: passes (improved)", cur: 30, base: 900, baseCen: true, want: gate.Improved},
		{name: "exact over a bound's limit: fails, said so", cur: 2000, base: 900, baseCen: true, want: gate.Fail, reason: "the baseline's figure is only a lower bound"},
	} {
		cur, base := load(t), load(t)
		c, b := strategy(t, cur, "checkpoint"), strategy(t, base, "checkpoint")
		c.Summary.BlindTime.P95, b.Summary.BlindTime.P95 = tc.cur, tc.base
		if tc.curCen {
			censor(c, tc.cur)
		}
		if tc.baseCen {
			censor(b, tc.base)
		}
		rule := results.GateRule{Metric: results.MetricBlindTimeP95, Strategy: "checkpoint", Max: tc.max}
		against := base
		if tc.base != 0 {
			rule.MaxRegression = &maxReg
		} else {
			against = nil
		}
		got, err := gate.CheckRule(cur, against, rule)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.Verdict != tc.want || !strings.Contains(got.Reason, tc.reason) || got.CurrentLowerBound != tc.curCen {
			t.Errorf("%s: %s (%q, lower bound %v), want %s (%q)", tc.name, got.Verdict, got.Reason, got.CurrentLowerBound, tc.want, tc.reason)
		}
	}
}

// withUnapplied gives the strategy n unapplied changes, and a declared expectation of up to
// declared when declared ≥ 0.
func withUnapplied(s *results.Strategy, n, declared int) {
	s.Summary.UnappliedChanges = n
	s.Unapplied = nil
	for range n {
		s.Unapplied = append(s.Unapplied, results.UnappliedChange{ID: "patch-0001", Kind: "patch", Object: "tg/ns/a", CensoredSeconds: 900, NotAppliedAfterSeconds: 900})
	}
	if declared >= 0 {
		s.Thresholds = append(s.Thresholds, results.ThresholdResult{Metric: results.MetricUnappliedChanges, Limit: float64(declared),
			Value: float64(n), Passed: n <= declared})
	}
}

// A candidate that leaves changes unapplied fails the gate unless the scenario expects them and
// the baseline left as many; old baselines, written before the count, count as none.
func TestGateFailsUnappliedChanges(t *testing.T) {
	for _, tc := range []struct {
		name               string
		cur, base, declare int
		noBaseline         bool
		fail               bool
	}{
		{name: "none unapplied: no check, as before", cur: 0, declare: -1},
		{name: "unapplied, the baseline none", cur: 4, base: 0, declare: 4, fail: true},
		{name: "unapplied, not expected, the baseline as many", cur: 4, base: 4, declare: -1, fail: true},
		{name: "expected, the baseline as many", cur: 4, base: 4, declare: 4},
		{name: "expected, more than the baseline", cur: 4, base: 3, declare: 4, fail: true},
		{name: "no baseline, expected", cur: 4, declare: 4, noBaseline: true},
		{name: "no baseline, not expected", cur: 1, declare: -1, noBaseline: true, fail: true},
	} {
		cur, base := load(t), load(t)
		withUnapplied(strategy(t, cur, "checkpoint"), tc.cur, tc.declare)
		withUnapplied(strategy(t, base, "checkpoint"), tc.base, -1)
		if tc.noBaseline {
			base = nil
			cur.Gate = []results.GateRule{{Metric: results.MetricTTFMR, Strategy: "checkpoint", Max: new(1e6)}}
		}
		rep, err := gate.Evaluate(cur, base)
		var found *gate.Check
		for i := range rep.Checks {
			if rep.Checks[i].Rule.Metric == results.MetricUnappliedChanges {
				found = &rep.Checks[i]
			}
		}
		switch {
		case tc.cur == 0 && found != nil:
			t.Errorf("%s: a check %+v for a strategy that applied everything", tc.name, *found)
		case tc.cur > 0 && found == nil:
			t.Errorf("%s: no unapplied_changes check in %+v", tc.name, rep.Checks)
		case tc.fail != (found != nil && found.Verdict == gate.Fail):
			t.Errorf("%s: check %+v, want failed %v", tc.name, found, tc.fail)
		case tc.fail && !gate.IsViolation(err):
			t.Errorf("%s: %v, want a violation", tc.name, err)
		}
	}
}

// The shipped baseline, written before unapplied changes were counted, still loads and gates
// against itself with no unapplied check.
func TestOldBaselineStillGates(t *testing.T) {
	base, err := results.Load("../../scenarios/baselines/ci-gate.json")
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := results.Load("../../scenarios/baselines/ci-gate.json")
	rep, err := gate.Evaluate(cur, base)
	if err != nil && !gate.IsInconclusive(err) { // its A/B side is judged on its own noise
		t.Fatalf("the baseline against itself: %v", err)
	}
	for _, c := range rep.Checks {
		if c.Rule.Metric == results.MetricUnappliedChanges || c.CurrentLowerBound {
			t.Errorf("check %+v: want none about unapplied changes", c)
		}
	}
	// A candidate with an unapplied change against it fails.
	withUnapplied(strategy(t, cur, "checkpoint"), 1, -1)
	if _, err := gate.Evaluate(cur, base); !gate.IsViolation(err) {
		t.Errorf("a candidate with an unapplied change: %v, want a violation", err)
	}
	var v *results.ViolationError
	if _, err := gate.Evaluate(cur, base); !errors.As(err, &v) || !strings.Contains(err.Error(), "checkpoint/unapplied_changes") {
		t.Errorf("%v: want the check named", err)
	}
}
