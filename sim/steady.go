package sim

import (
	"fmt"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/actions"
)

// neverSteadyNotes explains each strategy that never reached steady state and what that does to the
// exit code: with the invariants holding at the end and no change unapplied the run exits 0, because
// AWS is as it should be and only the measurement lacks an end (a target change the sim recorded was
// never seen applied in the call log, e.g. a container restart shorter than the controller's reaction
// needs no AWS call at all); with them failing it exits 3 like any invariant violation, and changes
// AWS never showed are unappliedNotes' subject.
func neverSteadyNotes(res *results.Results) []string {
	var out []string
	for _, st := range res.Strategies {
		if st.Summary.SteadyStateSeconds != nil {
			continue
		}
		unseen := 0
		for _, c := range st.Changes {
			if c.AppliedSeconds == nil {
				unseen++
			}
		}
		out = append(out, fmt.Sprintf("STEADY never for %s: %d of %d changes were never seen applied in AWS;", st.Name, unseen, len(st.Changes)))
		for _, ev := range st.Events {
			if ev.Kind == actions.EventStalled {
				out = append(out, fmt.Sprintf("  stalled at %.1fs, nothing having progressed since %.1fs: %s;", ev.EndSeconds, ev.AtSeconds, ev.Detail))
			}
		}
		switch {
		case !st.Invariants.Passed:
			out = append(out, "  the invariants fail as well (exit 3).")
		case st.MostUnapplied() > 0:
			out = append(out, "  AWS does not show them at the end: see UNAPPLIED.")
		default:
			out = append(out, "  every invariant holds at the end, so the run passes (exit 0): AWS is right, the measurement has no end.")
		}
	}
	return out
}
