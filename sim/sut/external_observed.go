package sut

import (
	"time"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/measure"
)

// firstTakeover is the process that took over after the first restart: the first to sync its
// caches after the stop (a standby, or the replacement), else the replacement; nil before it.
func (x *external) firstTakeover() *proc {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.replacements) == 0 {
		return nil
	}
	took, at := x.replacements[0], time.Time{}
	for _, p := range x.all {
		if _, t := p.watch.stats(); !t.Before(x.firstStop) && (at.IsZero() || t.Before(at)) {
			took, at = p, t
		}
	}
	return took
}

// noteAtStop records what every running process cost until now, leader the one about to stop.
func (x *external) noteAtStop(leader *proc) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var at []results.InstanceAtStop
	for _, q := range x.procs {
		cpu, rss := q.watch.now()
		role := results.RoleStandby
		if q == leader {
			role = results.RoleLeader
		}
		at = append(at, results.InstanceAtStop{Replica: q.id, Role: role, RSSBytes: rss, CPUSeconds: measure.Round3(cpu),
			UpSeconds: measure.Round3(time.Since(q.started).Seconds())})
	}
	x.atStops = append(x.atStops, at)
}

// instancesAtStops is, per restart so far, every process that ran just before its stop.
func (x *external) instancesAtStops() [][]results.InstanceAtStop {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([][]results.InstanceAtStop(nil), x.atStops...)
}

// Observed implements Controllers.
func (x *external) Observed() Observations {
	o := Observations{CachesSynced: x.cachesSynced(), AtStops: x.instancesAtStops()}
	if p := x.firstTakeover(); p != nil {
		o.TakeoverCPU, _ = p.watch.stats()
		o.Takeover = &Takeover{Instance: p.id, Started: p.started}
	}
	o.Work = WorkSource{Source: results.WorkSourceControllerRuntime, Controllers: x.x.ReconcileControllers}
	return o
}

// ElectsLeader implements Controllers: the harness knows of a Lease only when the scenario names it.
func (x *external) ElectsLeader() bool { return x.lease != nil }

// cachesSynced is when each process that logged so synced its caches (see inProcess.cachesSynced).
func (x *external) cachesSynced() []time.Time {
	x.mu.Lock()
	procs := append([]*proc(nil), x.all...)
	x.mu.Unlock()
	var out []time.Time
	for _, p := range procs {
		if _, t := p.watch.stats(); !t.IsZero() {
			out = append(out, t)
		}
	}
	return out
}
