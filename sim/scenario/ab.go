package scenario

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/reports/results"
)

// AB compares two builds of one strategy's controller in one run, as `restartsim gate` does: the
// baseline and the candidate each run Repeats times on the same fleet snapshot and timeline, their
// runs interleaved so that machine drift hits both alike. The baseline's results carry the strategy
// name with BaselineSuffix; the candidate keeps the name, so the gate's rules against a committed
// baseline judge the candidate.
type AB struct {
	// Strategy names the strategy both builds run. Required.
	Strategy string `json:"strategy"`
	// Repeats is the number of runs per side. Default 8: at 8 + 8 runs the two-sided Mann–Whitney
	// test reaches p = 0.00016, below the corrected level of every default metric.
	Repeats int `json:"repeats,omitempty"`
	// Baseline and Candidate say what each side runs. `restartsim gate --baseline-binary /
	// --candidate-binary` override their binaries.
	Baseline  Build `json:"baseline,omitempty"`
	Candidate Build `json:"candidate,omitempty"`
	// Alpha is the family-wise false-alarm rate over all compared metrics (weighted Holm).
	// Default 0.05.
	Alpha float64 `json:"alpha,omitempty"`
	// Metrics are the compared figures. Default: DefaultABMetrics.
	Metrics []ABMetric `json:"metrics,omitempty"`
}

// Build is one side of an A/B comparison.
type Build struct {
	// Binary runs the strategy out of process: a reference strategy as `<binary> controller
	// <flags>`, an external one with Binary in place of its command's first element. Empty: the
	// strategy as the scenario defines it (a reference strategy then needs a binary all the same,
	// so that both sides start the same way).
	Binary string `json:"binary,omitempty"`
	// Args are appended to the command (e.g. a test-only mutant for a power study).
	Args []string `json:"args,omitempty"`
}

// ABMetric is one compared figure. A check fails only when the candidate is significantly worse
// (Mann–Whitney p, corrected by weighted Holm, below Alpha) and by more than the minimum effect: its median above
// the baseline's × (1 + MinEffect) and by more than MinDelta.
type ABMetric struct {
	// Metric is a summary metric compared between the two builds' runs.
	Metric string `json:"metric"`
	// MinEffect is the smallest relative regression worth failing on. Default 0.2.
	MinEffect *float64 `json:"minEffect,omitempty"`
	// MinDelta is the smallest absolute regression worth failing on, in the metric's unit.
	// Default 0.
	MinDelta float64 `json:"minDelta,omitempty"`
	// Weight is the metric's share of ab.alpha in the weighted Holm procedure: a metric of weight 3
	// among six of weight 1 is tested at 3/9 of alpha before the others' rejections, those at 1/9.
	// Default 1; DefaultABMetrics weighs TTFMR, the figure the gate is for, at 3.
	Weight *float64 `json:"weight,omitempty"`
}

// A/B defaults.
const (
	DefaultABRepeats   = 8
	DefaultABAlpha     = 0.05
	DefaultABMinEffect = 0.2
	// DefaultABTTFMRWeight is TTFMR's weight among the default metrics (each other's is 1).
	DefaultABTTFMRWeight = 3.0
	// BaselineSuffix names the baseline side's strategy: "<strategy>-baseline".
	BaselineSuffix = "-baseline"
	maxABRepeats   = 100
)

// DefaultABMetrics are compared when ab.metrics is empty: the restart's latency and its low-noise
// costs up to the first meaningful reconcile.
func DefaultABMetrics() []ABMetric {
	m := func(name string, minDelta float64) ABMetric { return ABMetric{Metric: name, MinDelta: minDelta} }
	ttfmr := m(results.MetricTTFMR, 0.1)
	ttfmr.Weight = ptr.To(DefaultABTTFMRWeight)
	return []ABMetric{
		ttfmr,
		m(results.MetricChangeLatencyP50, 0.1),
		m(results.MetricChangeLatencyP95, 0.1),
		m(results.MetricControllerCPUBeforeFirst, 0.05),
		m(results.MetricAPIRequestsBeforeFirst, 5),
		m(results.MetricAWSCallsBeforeFirstMeaningful, 5),
		m(results.MetricCacheSync, 0.1),
	}
}

// BaselineName is the name of the A/B baseline side of strategy.
func BaselineName(strategy string) string { return strategy + BaselineSuffix }

func setABDefaults(ab *AB) {
	if ab.Repeats == 0 {
		ab.Repeats = DefaultABRepeats
	}
	if ab.Alpha == 0 {
		ab.Alpha = DefaultABAlpha
	}
	if len(ab.Metrics) == 0 {
		ab.Metrics = DefaultABMetrics()
	}
	for i := range ab.Metrics {
		if ab.Metrics[i].MinEffect == nil {
			e := DefaultABMinEffect
			ab.Metrics[i].MinEffect = &e
		}
		if ab.Metrics[i].Weight == nil {
			ab.Metrics[i].Weight = ptr.To(1.0)
		}
	}
}

func (v *validator) validateAB(s *Scenario) {
	ab := s.AB
	if ab == nil {
		return
	}
	names := s.Controller.strategyNames()
	if !slices.Contains(names, ab.Strategy) {
		v.add("ab.strategy", "unknown strategy %q (have: %s)", ab.Strategy, strings.Join(names, ", "))
	} else if len(ab.Strategy)+len(BaselineSuffix) > 63 || slices.Contains(names, BaselineName(ab.Strategy)) {
		v.add("ab.strategy", "the baseline side is named %q: it must be a DNS label of at most 63 and no other strategy's name", BaselineName(ab.Strategy))
	}
	v.count("ab.repeats", ab.Repeats, 2, maxABRepeats)
	if s.Repeats != 1 {
		v.add("repeats", "with ab, set the number of runs per side in ab.repeats (got repeats %d)", s.Repeats)
	}
	if ab.Alpha <= 0 || ab.Alpha >= 1 {
		v.add("ab.alpha", "must be in (0, 1), got %g", ab.Alpha)
	}
	known := results.MetricNames()
	seen := map[string]bool{}
	for i, m := range ab.Metrics {
		p := fmt.Sprintf("ab.metrics[%d]", i)
		switch {
		case !slices.Contains(known, m.Metric) || m.Metric == results.MetricInvariantViolations:
			v.add(p+".metric", "unknown metric %q (known: %s)", m.Metric, strings.Join(known, ", "))
		case seen[m.Metric]:
			v.add(p+".metric", "listed twice")
		}
		seen[m.Metric] = true
		if m.MinEffect != nil && *m.MinEffect < 0 {
			v.add(p+".minEffect", "must not be negative, got %g", *m.MinEffect)
		}
		if m.Weight != nil && !(*m.Weight > 0 && *m.Weight <= 1000) {
			v.add(p+".weight", "must be in (0, 1000], got %g", *m.Weight)
		}
		if m.MinDelta < 0 {
			v.add(p+".minDelta", "must not be negative, got %g", m.MinDelta)
		}
	}
	for side, b := range map[string]Build{"baseline": ab.Baseline, "candidate": ab.Candidate} {
		for i, a := range b.Args {
			v.template(fmt.Sprintf("ab.%s.args[%d]", side, i), a)
		}
	}
}

// ResultsAB maps the ab section onto results.AB (nil without one).
func (s *Scenario) ResultsAB() *results.AB {
	if s.AB == nil {
		return nil
	}
	out := &results.AB{Strategy: s.AB.Strategy, Baseline: BaselineName(s.AB.Strategy), Candidate: s.AB.Strategy,
		Repeats: s.AB.Repeats, Alpha: s.AB.Alpha,
		BaselineBuild:  results.Build{Binary: s.AB.Baseline.Binary, Args: s.AB.Baseline.Args},
		CandidateBuild: results.Build{Binary: s.AB.Candidate.Binary, Args: s.AB.Candidate.Args}}
	for _, m := range s.AB.Metrics {
		out.Metrics = append(out.Metrics, results.ABMetric{Metric: m.Metric, MinEffect: *m.MinEffect, MinDelta: m.MinDelta, Weight: *m.Weight})
	}
	return out
}
