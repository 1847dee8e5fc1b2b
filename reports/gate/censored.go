package gate

import (
	"fmt"

	"github.com/restartsim/restartsim/reports/results"
)

// lowerBound reports whether the rule's figure in r is only a lower bound: its metric is a
// percentile a change never applied reaches (results.Summary.LowerBounds). A ratio to another
// strategy's bound is not: dividing by a lower bound gives an upper bound, safe to judge.
func lowerBound(r *results.Results, rule results.GateRule) bool {
	s, ok := r.Strategy(rule.Strategy)
	return ok && s.Summary.LowerBounds()[rule.Metric]
}

// judgeBounds judges a check whose figures may be lower bounds. A current bound can pass only a
// regression limit set by a baseline that is a bound as well, with no absolute limit: both runs
// left the change unapplied, and their bounds (the same scenario's end) compare. Any other limit is
// a number the unbounded true value cannot be shown to stay within. A baseline bound alone makes
// the limit a lower bound of the true one: a pass is sure, a failure said to be conservative.
func judgeBounds(c *Check) {
	judge(c)
	switch {
	case c.CurrentLowerBound && (c.Rule.Max != nil || c.Baseline == nil || !c.BaselineLowerBound):
		if c.Verdict != Fail {
			c.Verdict = Fail
			c.Reason = fmt.Sprintf("a change was never applied within the run: at least %s, which cannot be shown within the limit", format(c.Current))
		} else {
			c.Reason = fmt.Sprintf("at least %s (a change never applied): %s", format(c.Current), c.Reason)
		}
	case c.BaselineLowerBound && c.Verdict == Fail:
		c.Reason += "; the baseline's figure is only a lower bound (a change it never applied)"
	}
}

// unappliedChecks fail a strategy that left more changes unapplied than allowed: as many as the
// scenario declared it expects (a threshold on unapplied_changes, else none), and with a baseline
// no more than the baseline left; an A/B candidate no more than its baseline side. A check is added
// only for a strategy with unapplied changes, so a gate of controllers that apply everything reads
// as before. Strategies with their own rule on the metric are judged by it alone.
func unappliedChecks(current, baseline *results.Results) []Check {
	var names, base []string
	own := map[string]bool{}
	for _, g := range current.Gate {
		names = append(names, g.Strategy, g.RelativeTo)
		base = append(base, g.Strategy, g.RelativeTo)
		if g.Metric == results.MetricUnappliedChanges {
			own[g.Strategy] = true
		}
	}
	if ab := current.AB; ab != nil {
		names, base = append(names, ab.Candidate), append(base, ab.Baseline)
	}
	var out []Check
	seen := map[string]bool{}
	for i, name := range names {
		st, ok := current.Strategy(name)
		if name == "" || seen[name] || own[name] || !ok || st.MostUnapplied() == 0 {
			continue
		}
		seen[name] = true
		allowed, _ := st.UnappliedAllowed()
		var against *float64
		if current.AB != nil && name == current.AB.Candidate && base[i] == current.AB.Baseline {
			if b, ok := current.Strategy(current.AB.Baseline); ok {
				against = floatPtr(float64(b.MostUnapplied()))
			}
		} else if baseline != nil {
			b := 0.0 // a strategy the baseline lacks, or results written before the count: none
			if bs, ok := baseline.Strategy(name); ok {
				b = float64(bs.MostUnapplied())
			}
			against = &b
		}
		limit := float64(allowed)
		if against != nil {
			limit = min(limit, *against)
		}
		c := Check{Rule: results.GateRule{Metric: results.MetricUnappliedChanges, Strategy: name, Max: floatPtr(limit)},
			Current: float64(st.MostUnapplied()), Baseline: against, Limit: limit, Verdict: Pass}
		if c.Current > c.Limit {
			c.Verdict = Fail
			c.Reason = fmt.Sprintf("changes never applied; allowed %s (the scenario expects %d", format(limit), allowed)
			if against != nil {
				c.Reason += fmt.Sprintf(", the baseline left %s", format(*against))
			}
			c.Reason += ")"
		}
		out = append(out, c)
	}
	return out
}

func floatPtr(v float64) *float64 { return &v }
