package measure

import (
	"math"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// Restart is a controller restart: At is when the new instance led (or the standby took over).
type Restart struct {
	At      float64
	Stopped float64 // when the old instance stopped
	// Started is when the replacement was started (≤ At): from then on an instance runs, and one may
	// act before it leads (the resume fast path).
	Started float64
	// Downtime is the scenario's wait between the stop and the replacement's start: the platform's
	// time to replace a process, not the controller's.
	Downtime float64
	Mode     string
	// LeaderElection tells the replacement had to acquire a Lease before leading; Leading is when
	// it did (nil: not known, or never within the run).
	LeaderElection bool
	Leading        *float64
	// AtStop is every controller process running just before the stop (external controllers).
	AtStop []results.InstanceAtStop
}

// Origin is when the restarted controller could run again (the stop plus the downtime): TTFMR and
// steady state count from it, so the blind time they report is the controller's own.
func (r Restart) Origin() float64 { return r.Stopped + r.Downtime }

// Change is one meaningful change: AWS must register and/or deregister targets of a target group,
// or (Ingress set) show a load balancer state an Ingress-side change asks for.
type Change struct {
	ID             string
	Kind           string
	TGB            string
	TargetGroupARN string
	At             float64
	Register       []tgbexpect.Target
	Deregister     []tgbexpect.Target
	// Ingress names the Ingress of an Ingress-side change. No single call applies one, so it is
	// applied when AWS's state was first seen to show it: Observed (nil: not yet).
	Ingress  string
	Observed *float64
	// Object names the object (group/namespace/name) of a change to a scenario's object group.
	// Like an Ingress-side change it is applied when AWS's state was first seen to show it
	// (Observed); its first meaningful mutation is the first successful call of one of
	// Mutations naming ResourceID, the identity of the object's AWS resource (fakeaws.Call.Resources).
	// AnyResource (an object whose resource no call names: no aws mapping, or an EC2 instance, e.g.
	// a Pod a node provisioner places) counts the first successful call of Mutations whatever it names.
	Object      string
	ResourceID  string
	AnyResource bool
	Mutations   []string
}

// Drift is an out-of-band AWS change the controller must repair: a removed target, or a revoked
// ingress rule of a security group.
type Drift struct {
	ID              string
	TGB             string
	TargetGroupARN  string
	Target          *tgbexpect.Target
	SecurityGroupID string
	At              float64
}

// AuditEvent is one request by the controller's identity, from the API server's audit log.
type AuditEvent struct {
	At          float64
	Verb        string
	Resource    string
	Subresource string
	Namespace   string
	Name        string
	Code        int
}

// Succeeded reports a 2xx response.
func (e AuditEvent) Succeeded() bool { return e.Code >= 200 && e.Code < 300 }

// Write reports a mutating verb.
func (e AuditEvent) Write() bool {
	switch e.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// CPUSample is a process's cumulative CPU time (user + system, real seconds) at scenario second At.
type CPUSample struct {
	At      float64
	Seconds float64
}

// GateFlip is one readiness-gate condition going from not True (Pending) to True, per pod.
type GateFlip struct {
	Pod     string
	Pending float64
	True    *float64
}

// Sample is one observation of a metric series.
type Sample struct {
	At     float64
	Series string
	Value  float64
}

// Input is everything a run recorded.
type Input struct {
	// Calls is the fakeaws call log of the measured phase.
	Calls []fakeaws.Call
	// Origin is fakeaws' scenario time at the start of the measured phase: a call's scenario second is
	// Call.Time − Origin.
	Origin   time.Time
	Restarts []Restart
	Changes  []Change
	Drifts   []Drift
	Audit    []AuditEvent
	// HasAudit tells an audit log was read (Audit may then be empty), so request counts are known.
	HasAudit  bool
	GateFlips []GateFlip
	// ReplacementCPU samples the CPU time of the process that took over after the first restart
	// (the replacement, or a standby that started before it), cumulative from the process's start;
	// empty for in-process controllers.
	ReplacementCPU []CPUSample
	// CachesSynced is when each controller instance reported its caches synced, where it tells.
	// An instance starts its workers, and says so, only once it leads, so the first moment after a
	// restart's stop is that of the instance that took over: the replacement, or a standby.
	CachesSynced []float64
	// ChurnAt is when each churn step began, in order: the restart's changes end at the second
	// one after it.
	ChurnAt []float64
	Samples []Sample
	// Work is the reconcile work of the instance that took over after the first restart, from its
	// own metrics (nil: not scraped).
	Work *Work
	// Memory is the controller instances' memory readings (nil: not read).
	Memory *Memory
	// Machine is the record of the machine the run shared, from the measured phase's start to
	// its end (nil: not watched).
	Machine *results.Machine
	// SteadyAt is when the final steady state was reached (nil: never).
	SteadyAt *float64
	// End is when the measured phase ended: a change not applied by then is censored there.
	End float64
	// TargetsHold tells the end-of-run invariants held: AWS had every binding's targets as desired,
	// so a target change never applied was superseded or needed no call.
	TargetsHold bool
}

// Sec is a call's scenario second.
func (in *Input) Sec(c *fakeaws.Call) float64 { return c.Time.Sub(in.Origin).Seconds() }

// Effective is when a call's state change took effect (time + latency), in scenario seconds.
func (in *Input) Effective(c *fakeaws.Call) float64 {
	return c.Time.Add(c.Latency).Sub(in.Origin).Seconds()
}

// restartEnd is when restart i's window ends: the next restart's stop, else the run's end.
func (in *Input) restartEnd(i int) float64 {
	if i+1 < len(in.Restarts) {
		return in.Restarts[i+1].Stopped
	}
	return math.Inf(1)
}

// cachesSynced is when the instance that took over after restart i synced its caches (nil: it
// did not tell, or not within the restart's window).
func (in *Input) cachesSynced(i int) *float64 {
	r, end := in.Restarts[i], in.restartEnd(i)
	var first *float64
	for _, t := range in.CachesSynced {
		if t >= r.Stopped && t < end && (first == nil || t < *first) {
			first = ptr(t)
		}
	}
	return first
}

// FirstRestart returns the first restart, if any.
func (in *Input) FirstRestart() (Restart, bool) {
	if len(in.Restarts) == 0 {
		return Restart{}, false
	}
	return in.Restarts[0], true
}
