package gate

import (
	"fmt"

	"github.com/restartsim/restartsim/results"
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
// scenario declared it expects (a threshold on unapplied_changes, else none), and no more than its
// baseline left: the baseline run's for a strategy the rules name, the baseline side's for an A/B
// candidate. A check is added only for a strategy with unapplied changes, so a gate of controllers
// that apply everything reads as before; a strategy with its own rule on the metric is judged by it.
func unappliedChecks(current, baseline *results.Results) []Check {
	// against returns the count the strategy's baseline left (nil: no baseline to compare with).
	type judged struct {
		name    string
		against func() *float64
	}
	fromBaseline := func(name string) func() *float64 {
		return func() *float64 {
			if baseline == nil {
				return nil
			}
			b := 0.0 // a strategy the baseline lacks, or results written before the count: none
			if bs, ok := baseline.Strategy(name); ok {
				b = float64(bs.MostUnapplied())
			}
			return &b
		}
	}
	var todo []judged
	own := map[string]bool{}
	if ab := current.AB; ab != nil {
		todo = append(todo, judged{ab.Candidate, func() *float64 {
			if b, ok := current.Strategy(ab.Baseline); ok {
				return floatPtr(float64(b.MostUnapplied()))
			}
			return nil
		}})
	}
	for _, g := range current.Gate {
		own[g.Strategy] = own[g.Strategy] || g.Metric == results.MetricUnappliedChanges
		todo = append(todo, judged{g.Strategy, fromBaseline(g.Strategy)})
		if g.RelativeTo != "" {
			todo = append(todo, judged{g.RelativeTo, fromBaseline(g.RelativeTo)})
		}
	}
	var out []Check
	seen := map[string]bool{}
	for _, j := range todo {
		st, ok := current.Strategy(j.name)
		if seen[j.name] || own[j.name] || !ok || st.MostUnapplied() == 0 {
			continue
		}
		seen[j.name] = true
		out = append(out, unappliedCheck(st, j.against()))
	}
	return out
}

// unappliedCheck judges st's unapplied changes against its declaration and the baseline's count.
func unappliedCheck(st *results.Strategy, against *float64) Check {
	allowed, _ := st.UnappliedAllowed()
	limit := float64(allowed)
	if against != nil {
		limit = min(limit, *against)
	}
	c := Check{Rule: results.GateRule{Metric: results.MetricUnappliedChanges, Strategy: st.Name, Max: floatPtr(limit)},
		Current: float64(st.MostUnapplied()), Baseline: against, Limit: limit, Verdict: Pass}
	if c.Current > c.Limit {
		c.Verdict = Fail
		c.Reason = fmt.Sprintf("changes never applied; allowed %s (the scenario expects %d", format(limit), allowed)
		if against != nil {
			c.Reason += fmt.Sprintf(", the baseline left %s", format(*against))
		}
		c.Reason += ")"
	}
	return c
}

func floatPtr(v float64) *float64 { return &v }
