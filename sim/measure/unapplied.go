package measure

import "github.com/restartsim/restartsim/internal/stats"

// latency is ch's latency from start: measured when it was applied (at applied), else censored at
// the run's end (at least in.End − start). ok is false for a target change never applied while the
// end state holds every binding's targets as desired (in.TargetsHold): a later change superseded
// it, or it needed no call at all (a container restart shorter than the controller's reaction), so
// it has no latency to count.
func latency(in *Input, ch *Change, applied *float64, start float64) (v stats.Value, ok bool) {
	switch {
	case applied != nil:
		return stats.Value{V: max(0, *applied-start)}, true
	case ch.target() && in.TargetsHold:
		return stats.Value{}, false
	}
	return stats.Value{V: max(0, in.End-start), Censored: true}, true
}

// target reports a change of a binding's targets, whose end state the invariants check.
func (ch *Change) target() bool { return ch.Ingress == "" && ch.Object == "" }

// What names what changed: the object, the Ingress or the binding.
func (ch *Change) What() string {
	switch {
	case ch.Object != "":
		return ch.Object
	case ch.Ingress != "":
		return ch.Ingress
	}
	return ch.TGB
}
