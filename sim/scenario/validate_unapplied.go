package scenario

import (
	"fmt"
	"math"
	"slices"

	"github.com/restartsim/restartsim/results"
)

// validateUnapplied checks the thresholds that declare changes expected to stay unapplied (a
// controller that never applies some kind of change): max is a whole count, and no strategy gets two
// such declarations, which would leave it unclear which one holds.
func (v *validator) validateUnapplied(ts []Threshold, strategies []string) {
	declared := map[string]int{} // strategy → the threshold declaring it
	for i, t := range ts {
		if t.Metric != results.MetricUnappliedChanges {
			continue
		}
		p := fmt.Sprintf("thresholds[%d]", i)
		if t.Max.Value != math.Trunc(t.Max.Value) {
			v.addf(p+".max", "%s counts changes: give a whole number, got %g", t.Metric, t.Max.Value)
		}
		names := t.Strategies
		if len(names) == 0 {
			names = strategies
		}
		for _, name := range names {
			if j, dup := declared[name]; dup && slices.Contains(strategies, name) {
				v.addf(p+".metric", "strategy %q already has a threshold on %s (thresholds[%d])", name, t.Metric, j)
				break
			}
			declared[name] = i
		}
	}
}
