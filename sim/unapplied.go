package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// unappliedShown is how many unapplied changes a note names before "+N more".
const unappliedShown = 5

// unappliedFindings names each strategy that left changes unapplied at the run's end without the
// scenario expecting them (a threshold on unapplied_changes): a finding about the controller, as
// AWS never showed what the cluster asked for, whatever the invariants (which check bindings'
// targets) say.
func unappliedFindings(res *results.Results) []string {
	var out []string
	for i := range res.Strategies {
		st := &res.Strategies[i]
		if _, declared := st.UnappliedAllowed(); declared || st.MostUnapplied() == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %d changes never applied (%s)", st.Name, st.MostUnapplied(), unappliedNames(st.Unapplied)))
	}
	return out
}

// unappliedNames lists changes by ID and object, the first few only.
func unappliedNames(us []results.UnappliedChange) string {
	var names []string
	for _, u := range us[:min(unappliedShown, len(us))] {
		names = append(names, fmt.Sprintf("%s %s", u.ID, u.Object))
	}
	if n := len(us) - unappliedShown; n > 0 {
		names = append(names, fmt.Sprintf("+%d more", n))
	}
	return strings.Join(names, ", ")
}

// unappliedNotes are the summary's lines on each strategy's unapplied changes: which, how long
// they had waited when the run ended, and what that does to the exit code.
func unappliedNotes(res *results.Results) []string {
	var out []string
	for i := range res.Strategies {
		st := &res.Strategies[i]
		n := st.MostUnapplied()
		if n == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("UNAPPLIED for %s: %d of %d changes still not applied when the run ended:", st.Name, n, len(st.Changes)))
		for _, u := range st.Unapplied[:min(unappliedShown, len(st.Unapplied))] {
			out = append(out, fmt.Sprintf("  %s %s (%s, made at %.1fs) not applied after %.1fs", u.ID, u.Object, u.Kind, u.AtSeconds, u.NotAppliedAfterSeconds))
		}
		if more := len(st.Unapplied) - unappliedShown; more > 0 {
			out = append(out, fmt.Sprintf("  +%d more (results.json lists every one)", more))
		}
		if limit, declared := st.UnappliedAllowed(); declared {
			out = append(out, fmt.Sprintf("  the scenario expects up to %d (threshold on %s): judged as a threshold.", limit, results.MetricUnappliedChanges))
		} else {
			out = append(out, fmt.Sprintf("  a controller finding (exit 3); a scenario that expects it declares a threshold on %s.", results.MetricUnappliedChanges))
		}
	}
	return out
}

// expectOrphans takes the orphans of each run of the strategy as leftovers the scenario declared (a
// threshold on orphaned_resources names it): the threshold judges their count, the invariants the rest.
func expectOrphans(sc *scenario.Scenario, strategy string, runs []*strategyOutcome) {
	for _, t := range sc.Thresholds {
		if t.Metric != results.MetricOrphanedResources || len(t.Strategies) > 0 && !slices.Contains(t.Strategies, strategy) {
			continue
		}
		for _, r := range runs {
			r.invariants.ExpectOrphans()
		}
		return
	}
}
