package measure

import "github.com/restartsim/restartsim/internal/stats"

// KindDelete is the kind of a change that deletes its object.
const KindDelete = "delete"

// latency is the latency from start of in.Changes[i]: measured when it was applied (at applied),
// else censored at the run's end (at least in.End − start). ok is false for a target change never
// applied while the end state holds every binding's targets as desired (in.TargetsHold): a later
// change superseded it, or it needed no call at all (a container restart shorter than the
// controller's reaction), so it has no latency to count. ok is false too for an object change a
// later delete of its object made moot.
func latency(in *Input, i int, applied *float64, start float64) (v stats.Value, ok bool) {
	ch := &in.Changes[i]
	switch {
	case applied != nil:
		return stats.Value{V: max(0, *applied-start)}, true
	case ch.target() && in.TargetsHold, deletedLater(in.Changes, i):
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

// deletedLater reports an object change that a later change of the run deleted the object of:
// nothing would show a patch of an object that is gone, so it is superseded, not unapplied, however
// the delete itself fares (a controller that never deletes leaves that one unapplied).
func deletedLater(changes []Change, i int) bool {
	ch := &changes[i]
	if ch.Object == "" || ch.Kind == KindDelete {
		return false
	}
	for j := i + 1; j < len(changes); j++ {
		if c := &changes[j]; c.Kind == KindDelete && c.Object == ch.Object && c.At >= ch.At {
			return true
		}
	}
	return false
}
