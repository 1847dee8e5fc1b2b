package gate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/results"
)

// Verdict is the outcome of one check.
type Verdict string

// Verdicts.
const (
	Pass     Verdict = "pass"
	Improved Verdict = "pass (improved)"
	Fail     Verdict = "FAIL"
)

// Check is one rule evaluated against the current run and the baseline.
type Check struct {
	Rule results.GateRule
	// Current is the metric in the run under test (a ratio when Rule.RelativeTo is set).
	Current float64
	// Baseline is the same figure in the baseline; nil when evaluated without one.
	Baseline *float64
	// Limit is the tightest of the absolute Max and baseline × (1 + MaxRegression) + Slack;
	// +Inf when no limit applies.
	Limit   float64
	Verdict Verdict
	// Reason explains a failure, e.g. "+62% over baseline, allowed +50%".
	Reason string
	// CurrentLowerBound and BaselineLowerBound tell a figure is only a lower bound: a percentile a
	// change never applied within the run reaches (results.Quantiles).
	CurrentLowerBound  bool
	BaselineLowerBound bool
}

// Name identifies the check: "strategy/metric" or "strategy/metric÷other".
func (c Check) Name() string {
	n := c.Rule.Strategy + "/" + c.Rule.Metric
	if c.Rule.RelativeTo != "" {
		n += "÷" + c.Rule.RelativeTo
	}
	return n
}

// Report is the outcome of a gate run: the rules against a committed baseline, and the A/B
// comparison of two builds run side by side.
type Report struct {
	Scenario string
	Checks   []Check
	AB       []ABCheck
	// Machines is the machine of every A/B run, in run order.
	Machines []MachineRun
	// ABOutcome is the A/B comparison's verdict (nil without one); AB is its checks.
	ABOutcome *ABOutcome
}

// InconclusiveError is the error of a gate whose A/B comparison could neither show a regression
// nor rule one out, and no other check failed: distinct from a violation, so that a CLI can give it
// its own exit code and CI can run the gate again.
type InconclusiveError struct{ Reason, Advice string }

func (e *InconclusiveError) Error() string {
	return "gate: INCONCLUSIVE: " + e.Reason + ". What to do: " + e.Advice
}

// IsInconclusive reports whether err is or wraps an *InconclusiveError.
func IsInconclusive(err error) bool {
	var e *InconclusiveError
	return errors.As(err, &e)
}

// FailedAB returns the failed A/B checks.
func (r *Report) FailedAB() []ABCheck {
	var out []ABCheck
	for _, c := range r.AB {
		if c.Verdict == Fail {
			out = append(out, c)
		}
	}
	return out
}

// Failed returns the failed checks.
func (r *Report) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Verdict == Fail {
			out = append(out, c)
		}
	}
	return out
}

// IsViolation reports whether err is or wraps a *results.ViolationError.
func IsViolation(err error) bool { return results.IsViolation(err) }

// violation is the error of a gate whose checks failed: a regression or a value over an absolute limit.
func violation(failed []Check, failedAB []ABCheck, total int) error {
	var parts []string
	for _, c := range failedAB {
		parts = append(parts, fmt.Sprintf("%s: candidate median %s vs baseline %s (%s)", c.Name(), format(c.CandidateMedian.Center), format(c.BaselineMedian.Center), c.Reason))
	}
	for _, c := range failed {
		rel := ">"
		if c.Current <= c.Limit { // a lower bound under the limit (judgeBounds)
			rel = "vs"
		}
		parts = append(parts, fmt.Sprintf("%s = %s %s limit %s (%s)", c.Name(), bound(c.Current, c.CurrentLowerBound), rel, format(c.Limit), c.Reason))
	}
	return &results.ViolationError{Kind: results.ViolationGate, Details: parts,
		Summary: fmt.Sprintf("gate: %d of %d checks failed", len(failed)+len(failedAB), total)}
}

// Evaluate checks current against its own gate rules (current.Gate) and the baseline, and judges
// its A/B comparison (current.AB) when it has one. With a nil baseline only absolute limits are
// checked (used when recording a new baseline). It returns the report and a *results.ViolationError when
// a check fails, or an *InconclusiveError when none failed but the A/B comparison could not be
// judged; any other error is bad input: no rules, an invalid rule, a strategy or metric missing
// from either run.
func Evaluate(current, baseline *results.Results) (*Report, error) {
	if current == nil {
		return nil, errors.New("gate: no current results")
	}
	if len(current.Gate) == 0 && current.AB == nil {
		return nil, fmt.Errorf("gate: results of scenario %q have no gate rules and no A/B comparison (add a gate: or ab: section to the scenario)", current.Scenario.Name)
	}
	rep := &Report{Scenario: current.Scenario.Name, Machines: ABMachines(current)}
	if current.AB != nil {
		out, err := EvaluateAB(current)
		if err != nil {
			return nil, err
		}
		rep.AB, rep.ABOutcome = out.Checks, out
	}
	for i, rule := range current.Gate {
		if err := validateRule(rule); err != nil {
			return nil, fmt.Errorf("gate: rule %d: %w", i+1, err)
		}
		c, err := CheckRule(current, baseline, rule)
		if err != nil {
			return nil, fmt.Errorf("gate: %w", err)
		}
		rep.Checks = append(rep.Checks, c)
	}
	rep.Checks = append(rep.Checks, unappliedChecks(current, baseline)...)
	failed, failedAB := rep.Failed(), rep.FailedAB()
	if len(failed)+len(failedAB) > 0 {
		return rep, violation(failed, failedAB, len(rep.Checks)+len(rep.AB))
	}
	if o := rep.ABOutcome; o != nil && o.Verdict == Inconclusive {
		return rep, &InconclusiveError{Reason: o.Reason, Advice: o.Advice}
	}
	return rep, nil
}

// CheckRule judges one valid rule: current's figure against the rule's absolute limit and, with a
// baseline and a maxRegression, against the baseline's figure. It is the one place limits are
// evaluated, for gate rules and for a scenario's thresholds alike. A figure that is only a lower
// bound is judged as such (judgeBounds). An error means a figure is missing from current or the
// baseline.
func CheckRule(current, baseline *results.Results, rule results.GateRule) (Check, error) {
	c := Check{Rule: rule, Limit: math.Inf(1), Verdict: Pass}
	var err error
	if c.Current, err = value(current, rule); err != nil {
		return c, fmt.Errorf("current results: %w", err)
	}
	c.CurrentLowerBound = lowerBound(current, rule)
	if rule.Max != nil {
		c.Limit = *rule.Max
	}
	if baseline != nil && rule.MaxRegression != nil {
		b, err := value(baseline, rule)
		if err != nil {
			return c, fmt.Errorf("baseline: %w (record a new baseline with --update-baseline)", err)
		}
		c.Baseline, c.BaselineLowerBound = &b, lowerBound(baseline, rule)
		c.Limit = math.Min(c.Limit, b*(1+*rule.MaxRegression)+rule.Slack)
	}
	judgeBounds(&c)
	return c, nil
}

// judge sets the verdict and reason; a relative tolerance absorbs float noise.
func judge(c *Check) {
	tol := 1e-9 * math.Max(1, math.Abs(c.Limit))
	switch {
	case c.Current > c.Limit+tol:
		c.Verdict = Fail
		if c.Rule.Max != nil && c.Limit == *c.Rule.Max {
			c.Reason = "over the absolute limit"
		} else {
			c.Reason = fmt.Sprintf("%s over baseline, allowed +%.0f%% + %s", change(*c.Baseline, c.Current), *c.Rule.MaxRegression*100, format(c.Rule.Slack))
		}
	case c.Baseline != nil && c.Current < *c.Baseline:
		c.Verdict = Improved
		c.Reason = change(*c.Baseline, c.Current) + " vs baseline"
	}
}

func change(from, to float64) string {
	if from == 0 {
		return fmt.Sprintf("%+g", to-from)
	}
	return fmt.Sprintf("%+.0f%%", (to-from)/from*100)
}

func validateRule(r results.GateRule) error {
	switch {
	case r.Strategy == "":
		return fmt.Errorf("metric %q: strategy is empty", r.Metric)
	case !slices.Contains(results.MetricNames(), r.Metric):
		return fmt.Errorf("unknown metric %q (known: %s)", r.Metric, strings.Join(results.MetricNames(), ", "))
	case r.Max == nil && r.MaxRegression == nil:
		return fmt.Errorf("%s/%s: neither max nor maxRegression is set", r.Strategy, r.Metric)
	case r.MaxRegression != nil && *r.MaxRegression < 0:
		return fmt.Errorf("%s/%s: maxRegression %g is negative", r.Strategy, r.Metric, *r.MaxRegression)
	case r.Slack < 0:
		return fmt.Errorf("%s/%s: slack %g is negative", r.Strategy, r.Metric, r.Slack)
	case r.RelativeTo == r.Strategy:
		return fmt.Errorf("%s/%s: relativeTo names the strategy itself", r.Strategy, r.Metric)
	}
	return nil
}

// value returns the rule's figure in r: the metric, or its ratio to another strategy's.
func value(r *results.Results, rule results.GateRule) (float64, error) {
	v, err := metric(r, rule.Strategy, rule.Metric)
	if err != nil || rule.RelativeTo == "" {
		return v, err
	}
	d, err := metric(r, rule.RelativeTo, rule.Metric)
	if err != nil {
		return 0, err
	}
	if d == 0 {
		return 0, fmt.Errorf("%s of strategy %q is 0, so %s cannot be taken relative to it", rule.Metric, rule.RelativeTo, rule.Strategy)
	}
	return v / d, nil
}

func metric(r *results.Results, strategy, name string) (float64, error) {
	s, ok := r.Strategy(strategy)
	if !ok {
		have := make([]string, len(r.Strategies))
		for i, st := range r.Strategies {
			have[i] = st.Name
		}
		return 0, fmt.Errorf("no strategy %q (have: %s)", strategy, strings.Join(have, ", "))
	}
	v, ok := s.Metrics()[name]
	if !ok {
		return 0, fmt.Errorf("metric %s is missing for strategy %q: the event it measures never happened in this run", name, strategy)
	}
	return v, checkValue(strategy, name, v)
}

// checkValue refuses a figure no run measures, negative or not finite: corrupted results, which
// would otherwise pass any limit relative to them (a negative baseline, a negative ratio).
func checkValue(strategy, metric string, v float64) error {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("corrupted results: %s of strategy %q is %g; a measured figure is finite and not negative", metric, strategy, v)
	}
	return nil
}

func format(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "-"
	case v == math.Trunc(v) && math.Abs(v) < 1e12:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.4g", v)
	}
}
