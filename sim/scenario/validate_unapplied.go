package scenario

import (
	"fmt"
	"math"
	"slices"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/objects"
)

// declaredMetrics are the threshold metrics that declare what a controller is expected to leave
// behind rather than bound a measurement: changes never applied, AWS resources deleted objects left.
var declaredMetrics = []string{results.MetricUnappliedChanges, results.MetricOrphanedResources}

// validateUnapplied checks the thresholds that declare changes expected to stay unapplied (a
// controller that never applies some kind of change) or AWS resources expected to stay (one that
// never deletes them): max is a whole count, no strategy gets two declarations of one metric, which
// would leave it unclear which one holds, and orphans need an object group with an AWS resource.
func (v *validator) validateUnapplied(s *Scenario, strategies []string) {
	declared := map[string]int{} // metric/strategy → the threshold declaring it
	for i, t := range s.Thresholds {
		if !slices.Contains(declaredMetrics, t.Metric) {
			continue
		}
		p := fmt.Sprintf("thresholds[%d]", i)
		if t.Max.Value != math.Trunc(t.Max.Value) {
			v.addf(p+".max", "%s counts %s: give a whole number, got %g", t.Metric, countedBy(t.Metric), t.Max.Value)
		}
		if t.Metric == results.MetricOrphanedResources && !slices.ContainsFunc(s.Fleet.Objects, func(g objects.Group) bool { return g.AWS != nil }) {
			v.addf(p+".metric", "%s counts the AWS resources of deleted objects, but no group of fleet.objects names one (aws)", t.Metric)
		}
		names := t.Strategies
		if len(names) == 0 {
			names = strategies
		}
		for _, name := range names {
			key := t.Metric + "/" + name
			if j, dup := declared[key]; dup && slices.Contains(strategies, name) {
				v.addf(p+".metric", "strategy %q already has a threshold on %s (thresholds[%d])", name, t.Metric, j)
				break
			}
			declared[key] = i
		}
	}
}

func countedBy(metric string) string {
	if metric == results.MetricOrphanedResources {
		return "AWS resources"
	}
	return "changes"
}
