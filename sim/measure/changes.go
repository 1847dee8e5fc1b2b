package measure

import (
	"math"
	"slices"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// Kinds of changes that are repairs of drift rather than workload changes.
const KindDrift = "drift"

// applications indexes successful Register/Deregister calls per target group and target ID.
type applications struct {
	in   *Input
	regs map[string]map[string][]*fakeaws.Call // tg → target ID → calls in order
	dere map[string]map[string][]*fakeaws.Call
	auth map[string][]*fakeaws.Call // sg → successful AuthorizeSecurityGroupIngress
}

func index(in *Input) *applications {
	a := &applications{in: in, regs: map[string]map[string][]*fakeaws.Call{}, dere: map[string]map[string][]*fakeaws.Call{}, auth: map[string][]*fakeaws.Call{}}
	for i := range in.Calls {
		c := &in.Calls[i]
		if c.Outcome != fakeaws.OutcomeOK {
			continue
		}
		var m map[string]map[string][]*fakeaws.Call
		switch c.Operation {
		case "RegisterTargets":
			m = a.regs
		case "DeregisterTargets":
			m = a.dere
		case "AuthorizeSecurityGroupIngress":
			a.auth[c.SecurityGroupID] = append(a.auth[c.SecurityGroupID], c)
			continue
		default:
			continue
		}
		byID := m[c.TargetGroupARN]
		if byID == nil {
			byID = map[string][]*fakeaws.Call{}
			m[c.TargetGroupARN] = byID
		}
		for _, t := range c.Targets {
			byID[t.ID] = append(byID[t.ID], c)
		}
	}
	return a
}

// first returns the first call in calls at or after from whose targets include t; ok false if none.
func (a *applications) first(calls []*fakeaws.Call, t tgbexpect.Target, from float64) (*fakeaws.Call, bool) {
	for _, c := range calls {
		if a.in.Sec(c) < from-1e-9 {
			continue
		}
		for _, ct := range c.Targets {
			if ct.ID == t.ID && (t.Port == 0 || ct.Port == 0 || ct.Port == t.Port) {
				return c, true
			}
		}
	}
	return nil, false
}

// applied returns when all of ch's targets were applied (nil if some never were).
func (a *applications) applied(ch *Change) *float64 {
	times, missing := a.times(ch)
	if missing || len(times) == 0 {
		return nil
	}
	return ptr(slices.Max(times))
}

// times returns when each of ch's targets was applied (effective times, in no particular order);
// missing reports that some never were.
func (a *applications) times(ch *Change) (times []float64, missing bool) {
	times, unregistered, underegistered := a.targetTimes(ch)
	return times, len(unregistered)+len(underegistered) > 0 || (!ch.target() && ch.Observed == nil)
}

// targetTimes returns when each of ch's targets was applied (effective times, in no particular
// order) and the targets it registers and deregisters that never were. An Ingress-side or object
// change has one time, when it was seen applied.
func (a *applications) targetTimes(ch *Change) (times []float64, unregistered, underegistered []tgbexpect.Target) {
	if !ch.target() {
		if ch.Observed != nil {
			times = []float64{*ch.Observed}
		}
		return times, nil, nil
	}
	deregAt := map[string]float64{}
	for _, t := range ch.Deregister {
		if c, ok := a.first(a.dere[ch.TargetGroupARN][t.ID], t, ch.At); ok {
			deregAt[t.ID] = a.in.Sec(c)
			times = append(times, a.in.Effective(c))
		} else {
			underegistered = append(underegistered, t)
		}
	}
	for _, t := range ch.Register {
		from := ch.At
		if d, ok := deregAt[t.ID]; ok && d > from {
			from = d // re-registration of the same target must follow its deregistration
		}
		if c, ok := a.first(a.regs[ch.TargetGroupARN][t.ID], t, from); ok {
			times = append(times, a.in.Effective(c))
		} else {
			unregistered = append(unregistered, t)
		}
	}
	return times, unregistered, underegistered
}

// superseded reports a target change that is not applied only because other changes of its binding
// made what it still waits for moot: each target it registers and never was, a later change
// deregisters; each it deregisters and never was, a later change registers again, or an earlier
// change registered and AWS never got. A pod rotated twice while the controller was down
// (.1 → .2 → .3) is one: the controller registers only .3 and deregisters .1, so the first
// rotation's registration of .2 and the second's deregistration of it never come. Nothing will
// ever apply such a change, so it is not pending; whether AWS ends as desired is the invariants' to
// say. An object change a later delete of its object made moot is superseded too.
func (a *applications) superseded(changes []Change, i int) bool {
	ch := &changes[i]
	if !ch.target() {
		return deletedLater(changes, i)
	}
	_, unregistered, underegistered := a.targetTimes(ch)
	other := func(t tgbexpect.Target, when func(at float64) bool, list func(*Change) []tgbexpect.Target) *Change {
		for j := range changes {
			c := &changes[j]
			if j != i && c.TGB == ch.TGB && when(c.At) &&
				slices.ContainsFunc(list(c), func(u tgbexpect.Target) bool { return u.ID == t.ID }) {
				return c
			}
		}
		return nil
	}
	later := func(at float64) bool { return at > ch.At }
	earlier := func(at float64) bool { return at < ch.At }
	for _, t := range unregistered {
		if other(t, later, func(c *Change) []tgbexpect.Target { return c.Deregister }) == nil {
			return false
		}
	}
	for _, t := range underegistered {
		if other(t, later, func(c *Change) []tgbexpect.Target { return c.Register }) != nil {
			continue
		}
		reg := other(t, earlier, func(c *Change) []tgbexpect.Target { return c.Register })
		if reg == nil {
			return false
		}
		if _, ok := a.first(a.regs[ch.TargetGroupARN][t.ID], t, reg.At); ok {
			return false
		}
	}
	return len(unregistered)+len(underegistered) > 0
}

// reference is when the clock of a change's latency starts: the change, or the restart that
// followed it if it happened while no controller ran. A change made after the replacement was
// started is timed from the change: the wait for the new instance to lead is part of its latency.
func reference(in *Input, at float64) float64 {
	for _, r := range in.Restarts {
		if at >= r.Stopped && at < r.Started {
			return r.Started
		}
	}
	return at
}

// measureChangeLatency times every change from its reference to when AWS reflected it.
func measureChangeLatency(in *Input) changeLatency {
	a := index(in)
	var res changeLatency
	var lats []stats.Value
	for i := range in.Changes {
		ch := &in.Changes[i]
		all := a.applied(ch)
		res.applied = append(res.applied, all)
		rc := results.Change{ID: ch.ID, Kind: ch.Kind, TGB: ch.TGB, Ingress: ch.Ingress, Object: ch.Object, AtSeconds: Round3(ch.At), AppliedSeconds: all}
		ref := reference(in, ch.At)
		if all != nil {
			rc.LatencySeconds = ptr(*all - ref)
		}
		if v, ok := latency(in, i, all, ref); ok {
			lats = append(lats, v)
			if v.Censored {
				res.unapplied = append(res.unapplied, results.UnappliedChange{ID: ch.ID, Kind: ch.Kind, Object: ch.What(),
					AtSeconds: Round3(ch.At), CensoredSeconds: Round3(in.End), NotAppliedAfterSeconds: Round3(v.V)})
			}
		}
		res.changes = append(res.changes, rc)
	}
	res.latency = CensoredQuantiles(lats)
	return res
}

// measureTTFMR finds the first AWS mutation after the first restart that applies any meaningful change
// (workload changes and drift repairs alike), timed from the restart's Origin (the stop, plus the
// scenario's downtime): the new instance's start-up (informer cache sync, a lease to expire) is
// part of the time the controller is blind. Mutations count from when the replacement was
// started, which may act before it leads. A change the old instance had begun to apply counts
// with its targets applied after that (a target deregistered before the crash and registered
// again after it).
//
// Every later restart gets its own first meaningful mutation, within its window (until the next
// restart's stop), for its breakdown.
func measureTTFMR(in *Input) firstMeaningful {
	r, ok := in.FirstRestart()
	if !ok {
		return firstMeaningful{}
	}
	a := index(in)
	var applied []float64
	for i := range in.Changes {
		if t := a.mutated(&in.Changes[i]); t != nil {
			applied = append(applied, *t)
			continue
		}
		times, _ := a.times(&in.Changes[i])
		applied = append(applied, times...)
	}
	for i := range in.Drifts {
		if t := a.repaired(&in.Drifts[i]); t != nil {
			applied = append(applied, *t)
		}
	}
	first := func(from, until float64) *float64 {
		var best *float64
		for _, t := range applied {
			if t >= from && t < until && (best == nil || t < *best) {
				v := t // unrounded, as the end of the windows the costs are counted in
				best = &v
			}
		}
		return best
	}
	var res firstMeaningful
	if best := first(r.Started, math.Inf(1)); best != nil {
		res.at = best
		res.ttfmr = ptr(*best - r.Origin())
	}
	res.perRestart = make([]*float64, len(in.Restarts))
	for i, ri := range in.Restarts {
		res.perRestart[i] = first(ri.Started, in.restartEnd(i))
	}
	return res
}

// mutated is when the first successful call of an object change's Mutations naming its resource took
// effect, at or after the change (nil: the change names none, or none was made). A poll of AWS's
// state sees the change up to a poll interval later; the call is the controller's own first act.
func (a *applications) mutated(ch *Change) *float64 {
	if ch.Object == "" || (ch.ResourceID == "" && !ch.AnyResource) || len(ch.Mutations) == 0 {
		return nil
	}
	for i := range a.in.Calls {
		c := &a.in.Calls[i]
		if c.Outcome != fakeaws.OutcomeOK || a.in.Sec(c) < ch.At-1e-9 || !slices.Contains(ch.Mutations, c.Operation) {
			continue
		}
		if ch.AnyResource || slices.Contains(c.Resources(), ch.ResourceID) {
			return ptr(a.in.Effective(c))
		}
	}
	return nil
}

// repaired is when a drift was repaired (nil: never).
func (a *applications) repaired(d *Drift) *float64 {
	if d.Target != nil {
		if c, ok := a.first(a.regs[d.TargetGroupARN][d.Target.ID], *d.Target, d.At); ok {
			return ptr(a.in.Effective(c))
		}
		return nil
	}
	for _, c := range a.auth[d.SecurityGroupID] {
		if a.in.Sec(c) >= d.At {
			return ptr(a.in.Effective(c))
		}
	}
	return nil
}

// measureDriftRepair times every drift from when it was made until the controller repaired it.
func measureDriftRepair(in *Input) driftRepair {
	a := index(in)
	var res driftRepair
	var lats []float64
	for i := range in.Drifts {
		d := &in.Drifts[i]
		rep := a.repaired(d)
		rc := results.Change{ID: d.ID, Kind: KindDrift, TGB: d.TGB, AtSeconds: Round3(d.At), AppliedSeconds: rep}
		if rep != nil {
			rc.LatencySeconds = ptr(*rep - d.At)
			lats = append(lats, *rc.LatencySeconds)
		}
		res.repairs = append(res.repairs, rc)
	}
	res.latency = Quantiles(lats)
	return res
}

// Pending counts the changes and drifts AWS does not reflect yet, judged from in.Calls: the
// steady state needs none pending (the cluster-derived invariants alone can lag behind a change).
// A superseded target change is not pending: nothing would ever apply it, and a steady-state wait
// on it could only time out.
func Pending(in *Input) int {
	a := index(in)
	n := 0
	for i := range in.Changes {
		if a.applied(&in.Changes[i]) == nil && !a.superseded(in.Changes, i) {
			n++
		}
	}
	for i := range in.Drifts {
		if a.repaired(&in.Drifts[i]) == nil {
			n++
		}
	}
	return n
}
