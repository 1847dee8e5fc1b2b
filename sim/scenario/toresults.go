package scenario

import (
	"time"

	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/results"
)

// What results.json records of a scenario, one mapping per concept: the results package owns what
// results.json holds and cannot import this one. Gate rules need none: results.GateRule is the gate
// section's type.

// ResultsScenario describes the scenario as run: read from file, started at started.
func (s *Scenario) ResultsScenario(file string, started time.Time) results.Scenario {
	return results.Scenario{Name: s.Name, File: file, Seed: s.Seed, TimeScale: s.TimeScale,
		TGBs: s.Fleet.TargetGroupBindings, StartedAt: started.UTC(), Repeats: s.Repeats}
}

// ResultsAB maps the ab section, defaulted, onto results.AB (nil without one). The run adds what it
// finds of each side's build (its version and hash) and of the sampling.
func (s *Scenario) ResultsAB() *results.AB {
	if s.AB == nil {
		return nil
	}
	out := &results.AB{Strategy: s.AB.Strategy, Baseline: BaselineName(s.AB.Strategy), Candidate: s.AB.Strategy,
		Repeats: s.AB.Repeats, Alpha: s.AB.Alpha,
		Block: s.AB.Block, MaxRepeats: s.AB.MaxRepeats, BudgetSeconds: s.AB.Budget.Seconds(),
		BaselineBuild: s.AB.Baseline.results(), CandidateBuild: s.AB.Candidate.results()}
	for _, m := range s.AB.Metrics {
		out.Metrics = append(out.Metrics, m.results())
	}
	return out
}

// results is the build as results.AB records it, before the run adds its version and hash.
func (b Build) results() results.Build { return results.Build{Binary: b.Binary, Args: b.Args} }

// results is the defaulted metric as results.AB records it.
func (m ABMetric) results() results.ABMetric {
	return results.ABMetric{Metric: m.Metric, MinEffect: *m.MinEffect, MinDelta: m.MinDelta, Weight: *m.Weight,
		AbsEffect: ptr.Deref(m.AbsEffect, 0)}
}
