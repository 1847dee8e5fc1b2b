package scenario

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/results"
)

// AB compares two builds of one strategy's controller in one run, as `restartsim gate` does: the
// baseline and the candidate each run Repeats times on the same fleet snapshot and timeline, their
// runs interleaved so that machine drift hits both alike. The baseline's results carry the strategy
// name with BaselineSuffix; the candidate keeps the name, so the gate's rules against a committed
// baseline judge the candidate.
type AB struct {
	// Strategy names the strategy both builds run. Required.
	Strategy string `json:"strategy"`
	// Repeats is the number of runs per side before the gate's first look. Default 8: at 8 + 8 runs
	// the two-sided Mann–Whitney test reaches p = 0.00016, below the first look's level of every
	// default metric.
	Repeats int `json:"repeats,omitempty"`
	// Block is the number of runs per side added after a look whose verdict is inconclusive.
	// Default 4: about 80 s of ci-gate on two quiet cores, so that a look comes often enough to
	// stop early and the boundary's levels stay near those of a few equal looks.
	Block int `json:"block,omitempty"`
	// MaxRepeats is the most runs per side; the group-sequential boundary spends alpha over
	// Repeats … MaxRepeats. Default 24 (8 + 4 blocks of 4): 48 ci-gate runs fit the default budget
	// on two quiet cores.
	MaxRepeats int `json:"maxRepeats,omitempty"`
	// Budget is the wall time the scenario run may take, fleet snapshot included; a block starts
	// only when the runs so far say it fits. Default 10m: with the baseline's build (1-2 min when
	// not cached) `make gate` stays within CI's 15 minutes.
	Budget *Duration `json:"budget,omitempty"`
	// Baseline and Candidate say what each side runs. `restartsim gate --baseline-binary /
	// --candidate-binary` override their binaries.
	Baseline  Build `json:"baseline,omitempty"`
	Candidate Build `json:"candidate,omitempty"`
	// Parallel is how many runs run side by side when `restartsim gate --parallel` does not say
	// (each with its own API server, etcd, fakeaws, controller, ports and directory; the sides
	// interleaved; a look waits for its block). Default 1, one after another: side by side suits
	// runs that mostly wait (a controller waiting for its Lease), not runs that keep the CPUs busy.
	Parallel int `json:"parallel,omitempty"`
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
	// MinDelta is the smallest absolute regression worth failing on, in the metric's unit: a floor
	// under every other minimum effect. Default 0.
	MinDelta float64 `json:"minDelta,omitempty"`
	// AbsEffect is an absolute regression that matters whatever its relative size: the minimum
	// effect is the smaller of MinEffect × the baseline's median and AbsEffect. Default
	// DefaultABAbsEffectSeconds for *_seconds metrics, none for others.
	AbsEffect *float64 `json:"absEffect,omitempty"`
	// Weight is the metric's share of ab.alpha in the weighted Holm procedure: a metric of weight 3
	// among six of weight 1 is tested at 3/9 of alpha before the others' rejections, those at 1/9.
	// Default 1; DefaultABMetrics weighs TTFMR, the figure the gate is for, at 3.
	Weight *float64 `json:"weight,omitempty"`
}

// A/B defaults.
const (
	DefaultABRepeats    = 8
	DefaultABBlock      = 4
	DefaultABMaxRepeats = 24
	DefaultABBudget     = 10 * time.Minute
	// DefaultABAbsEffectSeconds is the absolute minimum effect of seconds metrics (scenario
	// seconds for latencies): the smallest regression a restart of a 15-20 s TTFMR (LBC, whose
	// new leader waits for the Lease and retries it every 2 s) can rule out within a gate's budget
	// — its A/A spread is about the Lease's retry period — and well under the +2 s a slower
	// start-up costs. Below 5 s of baseline the relative +20 % is the smaller and decides.
	DefaultABAbsEffectSeconds = 1.0
	DefaultABAlpha            = 0.05
	DefaultABMinEffect        = 0.2
	// DefaultABTTFMRWeight is TTFMR's weight among the default metrics (each other's is 1).
	DefaultABTTFMRWeight = 3.0
	// BaselineSuffix names the baseline side's strategy: "<strategy>-baseline".
	BaselineSuffix = "-baseline"
	maxABRepeats   = 100
	// MaxABParallel bounds ab.parallel and --parallel: every run holds its own API server, etcd
	// and controller.
	MaxABParallel = 8
)

// minMemoryDelta is the smallest memory regression the default metrics fail on: a Go heap's
// readings move by a few MiB with the collector's timing alone.
const minMemoryDelta = 4 << 20

// DefaultABMetrics are compared when ab.metrics is empty: the restart's latency, its low-noise
// costs up to the first meaningful reconcile, and its peak memory.
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
		m(results.MetricRestartPeakRSS, minMemoryDelta),
		m(results.MetricRestartPeakHeap, minMemoryDelta),
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
	if ab.Block == 0 {
		ab.Block = DefaultABBlock
	}
	if ab.MaxRepeats == 0 {
		ab.MaxRepeats = max(DefaultABMaxRepeats, ab.Repeats)
	}
	if ab.Budget == nil {
		ab.Budget = &Duration{DefaultABBudget}
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
		if ab.Metrics[i].AbsEffect == nil && strings.HasSuffix(ab.Metrics[i].Metric, "_seconds") {
			ab.Metrics[i].AbsEffect = ptr.To(DefaultABAbsEffectSeconds)
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
		v.addf("ab.strategy", "unknown strategy %q (have: %s)", ab.Strategy, strings.Join(names, ", "))
	} else if len(ab.Strategy)+len(BaselineSuffix) > 63 || slices.Contains(names, BaselineName(ab.Strategy)) {
		v.addf("ab.strategy", "the baseline side is named %q: it must be a DNS label of at most 63 and no other strategy's name", BaselineName(ab.Strategy))
	}
	v.count("ab.repeats", ab.Repeats, 2, maxABRepeats)
	v.count("ab.block", ab.Block, 1, maxABRepeats)
	v.count("ab.maxRepeats", ab.MaxRepeats, ab.Repeats, maxABRepeats)
	if ab.Parallel != 0 {
		v.count("ab.parallel", ab.Parallel, 1, MaxABParallel)
	}
	if ab.Budget != nil && ab.Budget.Duration <= 0 {
		v.addf("ab.budget", "must be positive, got %s", ab.Budget.Duration)
	}
	if s.Repeats != 1 {
		v.addf("repeats", "with ab, set the number of runs per side in ab.repeats (got repeats %d)", s.Repeats)
	}
	if ab.Alpha <= 0 || ab.Alpha >= 1 {
		v.addf("ab.alpha", "must be in (0, 1), got %g", ab.Alpha)
	}
	known := results.MetricNames()
	seen := map[string]bool{}
	for i, m := range ab.Metrics {
		p := fmt.Sprintf("ab.metrics[%d]", i)
		switch {
		case !slices.Contains(known, m.Metric) || m.Metric == results.MetricInvariantViolations || m.Metric == results.MetricOrphanedResources ||
			m.Metric == results.MetricLeakedInstances:
			v.addf(p+".metric", "unknown metric %q (known: %s)", m.Metric, strings.Join(known, ", "))
		case seen[m.Metric]:
			v.addf(p+".metric", "listed twice")
		}
		seen[m.Metric] = true
		if m.MinEffect != nil && *m.MinEffect < 0 {
			v.addf(p+".minEffect", "must not be negative, got %g", *m.MinEffect)
		}
		if m.Weight != nil && !(*m.Weight > 0 && *m.Weight <= 1000) {
			v.addf(p+".weight", "must be in (0, 1000], got %g", *m.Weight)
		}
		if m.MinDelta < 0 {
			v.addf(p+".minDelta", "must not be negative, got %g", m.MinDelta)
		}
		if m.AbsEffect != nil && *m.AbsEffect < 0 {
			v.addf(p+".absEffect", "must not be negative, got %g", *m.AbsEffect)
		}
	}
	for side, b := range map[string]Build{"baseline": ab.Baseline, "candidate": ab.Candidate} {
		for i, a := range b.Args {
			v.template(fmt.Sprintf("ab.%s.args[%d]", side, i), a)
		}
	}
}
