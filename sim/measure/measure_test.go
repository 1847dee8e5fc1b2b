package measure

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

func TestRunOnSyntheticLog(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tg := "arn:tg/a"
	calls := []fakeaws.Call{
		{Time: at(1), Service: "elbv2", Operation: "DescribeTargetHealth", TargetGroupARN: tg, Outcome: fakeaws.OutcomeOK},
		{Time: at(2), Service: "elbv2", Operation: "DescribeTargetHealth", Outcome: fakeaws.OutcomeThrottled},
		{Time: at(3), Service: "elbv2", Operation: "RegisterTargets", TargetGroupARN: tg, Targets: []fakeaws.Target{{ID: "10.0.0.9", Port: 80}}, Outcome: fakeaws.OutcomeThrottled},
		{Time: at(4), Latency: 500 * time.Millisecond, Service: "elbv2", Operation: "RegisterTargets", TargetGroupARN: tg, Targets: []fakeaws.Target{{ID: "10.0.0.9", Port: 80}}, Outcome: fakeaws.OutcomeOK},
		{Time: at(6), Service: "elbv2", Operation: "DeregisterTargets", TargetGroupARN: tg, Targets: []fakeaws.Target{{ID: "10.0.0.1", Port: 80}}, Outcome: fakeaws.OutcomeOK},
		{Time: at(9), Service: "elbv2", Operation: "RegisterTargets", TargetGroupARN: tg, Targets: []fakeaws.Target{{ID: "10.0.0.5", Port: 80}}, Outcome: fakeaws.OutcomeOK},
	}
	in := &Input{
		Calls: calls, Origin: t0, End: 20,
		Restarts: []Restart{{At: 0.5, Stopped: 0.5, Started: 0.5, Mode: "crash", AtStop: []results.InstanceAtStop{
			{Replica: 0, Role: results.RoleLeader, RSSBytes: 300 << 20}, {Replica: 1, Role: results.RoleStandby, RSSBytes: 120 << 20},
			{Replica: 2, Role: results.RoleStandby, RSSBytes: 90 << 20}}}},
		Changes: []Change{
			{ID: "c1", Kind: "rotate-ip", TGB: "ns/a", TargetGroupARN: tg, At: 1, Register: []tgbexpect.Target{{ID: "10.0.0.9", Port: 80}}, Deregister: []tgbexpect.Target{{ID: "10.0.0.1", Port: 80}}},
			{ID: "c2", Kind: "scale-up", TGB: "ns/a", TargetGroupARN: tg, At: 7, Register: []tgbexpect.Target{{ID: "10.0.0.7", Port: 80}}},
		},
		Drifts: []Drift{{ID: "d1", TGB: "ns/a", TargetGroupARN: tg, Target: &tgbexpect.Target{ID: "10.0.0.5", Port: 80}, At: 8}},
		Audit: []AuditEvent{{At: 1, Verb: "patch", Resource: "targetgroupbindings", Code: 200}, {At: 2, Verb: "patch", Resource: "pods", Subresource: "status", Code: 200},
			{At: 99, Verb: "patch", Resource: "targetgroupbindings", Code: 200},
			// Reads, failed writes and writes of the controller's own bookkeeping are not k8s writes.
			{At: 1.5, Verb: "list", Resource: "pods", Code: 200}, {At: 2.5, Verb: "patch", Resource: "targetgroupbindings", Code: 409},
			{At: 3, Verb: "update", Resource: "leases", Code: 200}, {At: 5, Verb: "watch", Resource: "pods", Code: 200}},
		HasAudit:       true,
		ReplacementCPU: []CPUSample{{At: 0.5, Seconds: 0}, {At: 4, Seconds: 0.3}, {At: 5, Seconds: 0.5}},
		CachesSynced:   []float64{2.0},
	}
	out := Run(in)
	s := out.Summary
	if s.TTFMRSeconds == nil || *s.TTFMRSeconds != 4 { // first applying mutation: register at 4 s + 0.5 s latency, minus restart 0.5 s
		t.Errorf("TTFMR = %v, want 4", deref(s.TTFMRSeconds))
	}
	if got := out.Changes[0].LatencySeconds; got == nil || *got != 5 { // dereg effective at 6 s, change at 1 s
		t.Errorf("c1 latency = %v, want 5", deref(got))
	}
	if out.Changes[1].AppliedSeconds != nil {
		t.Errorf("c2 should be unapplied")
	}
	// c2 never applied: censored at the run's end (20 s − 7 s), so the median of 5 and ≥ 13 is a bound.
	if q := s.ChangeLatency; q.Count != 2 || q.Censored != 1 || q.P50 != 9 || !q.P50Censored || q.Max != 13 || !q.MaxCensored ||
		s.DriftRepair.Count != 1 || s.DriftRepair.Max != 1 {
		t.Errorf("quantiles: change %+v drift %+v", s.ChangeLatency, s.DriftRepair)
	}
	if s.UnappliedChanges != 1 || len(out.Unapplied) != 1 || out.Unapplied[0] != (results.UnappliedChange{ID: "c2", Kind: "scale-up",
		Object: "ns/a", AtSeconds: 7, CensoredSeconds: 20, NotAppliedAfterSeconds: 13}) {
		t.Errorf("unapplied %d %+v, want c2, not applied after 13 s", s.UnappliedChanges, out.Unapplied)
	}
	if s.AWSCalls["RegisterTargets"] != 3 || s.Throttled != 2 {
		t.Errorf("calls %v throttled %d", s.AWSCalls, s.Throttled)
	}
	// Before the first meaningful mutation (4.5 s): the calls at 1, 2, 3 and the one at 4 (sent at 4 s).
	if n := s.AWSCallsBeforeFirstMeaningful["DescribeTargetHealth"] + s.AWSCallsBeforeFirstMeaningful["RegisterTargets"]; n != 4 || s.ThrottledBeforeFirstMeaningful != 2 {
		t.Errorf("before first meaningful: %v, throttled %d", s.AWSCallsBeforeFirstMeaningful, s.ThrottledBeforeFirstMeaningful)
	}
	if s.K8sWrites.CheckpointPatches != 1 || s.K8sWrites.PodStatusPatches != 1 {
		t.Errorf("k8s writes %+v", s.K8sWrites)
	}
	if len(out.Timeseries) == 0 {
		t.Error("no timeseries")
	}
	// From the replacement's start (0.5 s) to the first meaningful mutation (4.5 s): every request
	// but the watch at 5 s; CPU interpolated between the samples at 4 s and 5 s.
	if n := s.APIRequestsBeforeFirstMeaningful; n == nil || *n != 5 {
		t.Errorf("API requests before the first meaningful mutation = %v, want 5", n)
	}
	if c := s.ControllerCPUSecondsBeforeFirstMeaningful; c == nil || *c != 0.4 {
		t.Errorf("controller CPU before the first meaningful mutation = %v, want 0.4", deref(c))
	}
	if c := s.CacheSyncSeconds; c == nil || *c != 1.5 {
		t.Errorf("cache sync = %v, want 1.5", deref(c))
	}
	// Reads and Lease writes of the measured phase; the write at 99 s is after its end.
	if l := s.APILoad; l == nil || *l != (results.APILoad{Lists: 1, Watches: 1, LeaseWrites: 1}) {
		t.Errorf("API load = %+v, want 1 list, 1 watch, 1 Lease write", l)
	}
	// The largest standby's memory, not the leader's.
	if m := s.StandbyRSSBytes; m == nil || *m != 120<<20 {
		t.Errorf("standby RSS = %v, want 120 MiB", m)
	}
}

func ptrTo(v float64) *float64 { return &v }

// Without an audit log or process samples the costs are unknown, not zero.
func TestBlindCostsUnknown(t *testing.T) {
	tg := "arn:tg/a"
	in := &Input{Origin: time.Unix(0, 0), End: 10, Restarts: []Restart{{Started: 0.5, Stopped: 0.5, At: 0.5}},
		Calls:   []fakeaws.Call{{Time: time.Unix(2, 0), Service: "elbv2", Operation: "RegisterTargets", TargetGroupARN: tg, Targets: []fakeaws.Target{{ID: "10.0.0.9", Port: 80}}, Outcome: fakeaws.OutcomeOK}},
		Changes: []Change{{ID: "c1", TGB: "ns/a", TargetGroupARN: tg, At: 1, Register: []tgbexpect.Target{{ID: "10.0.0.9", Port: 80}}}}}
	s := Run(in).Summary
	if s.TTFMRSeconds == nil || s.APIRequestsBeforeFirstMeaningful != nil || s.ControllerCPUSecondsBeforeFirstMeaningful != nil || s.CacheSyncSeconds != nil ||
		s.APILoad != nil || s.StandbyRSSBytes != nil {
		t.Errorf("summary %+v: want TTFMR only", s)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// A replacement may act before it leads (the resume fast path): its mutations count for TTFMR, and
// a change made after it was started is timed from the change, not from when it led.
func TestRestartStartedBeforeLeading(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tg := "arn:tg/a"
	in := &Input{
		Calls: []fakeaws.Call{
			{Time: at(1.5), Service: "elbv2", Operation: "RegisterTargets", TargetGroupARN: tg, Targets: []fakeaws.Target{{ID: "10.0.0.9", Port: 80}}, Outcome: fakeaws.OutcomeOK},
		},
		Origin: t0, End: 10,
		Restarts: []Restart{{Stopped: 0.1, Started: 0.2, At: 3, Mode: "crash"}},
		Changes:  []Change{{ID: "c1", Kind: "scale-up", TGB: "ns/a", TargetGroupARN: tg, At: 1, Register: []tgbexpect.Target{{ID: "10.0.0.9", Port: 80}}}},
	}
	out := Run(in)
	if got := out.Summary.TTFMRSeconds; got == nil || *got != 1.4 {
		t.Errorf("TTFMR = %v, want 1.4 (register at 1.5 s, before the new instance led at 3 s)", deref(got))
	}
	if got := out.Changes[0].LatencySeconds; got == nil || *got != 0.5 {
		t.Errorf("latency = %v, want 0.5 (from the change at 1 s)", deref(got))
	}
}

// A restart with downtime: TTFMR and steady state count from the stop plus the downtime, and a
// change made during the downtime is timed from the replacement's start.
func TestRestartDowntimeOrigin(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tg := "arn:tg/a"
	steady := 6.0
	in := &Input{
		Calls: []fakeaws.Call{
			{Time: at(2.5), Service: "elbv2", Operation: "RegisterTargets", TargetGroupARN: tg, Targets: []fakeaws.Target{{ID: "10.0.0.9", Port: 80}}, Outcome: fakeaws.OutcomeOK},
		},
		Origin: t0, End: 10, SteadyAt: &steady,
		Restarts: []Restart{{Stopped: 1, Downtime: 1, Started: 2.01, At: 4, Mode: "crash"}},
		Changes:  []Change{{ID: "c1", Kind: "scale-up", TGB: "ns/a", TargetGroupARN: tg, At: 1.5, Register: []tgbexpect.Target{{ID: "10.0.0.9", Port: 80}}}},
	}
	out := Run(in)
	if got := out.Summary.TTFMRSeconds; got == nil || *got != 0.5 {
		t.Errorf("TTFMR = %v, want 0.5 (register at 2.5 s, stop at 1 s + 1 s downtime)", deref(got))
	}
	if got := out.Summary.SteadyStateSeconds; got == nil || *got != 4 {
		t.Errorf("steady state = %v, want 4", deref(got))
	}
	if got := out.Changes[0].LatencySeconds; got == nil || *got < 0.489 || *got > 0.491 {
		t.Errorf("latency = %v, want 0.49 (from the replacement's start at 2.01 s)", deref(got))
	}
}

// A change the old instance had begun to apply before the crash (a container restart: target
// deregistered, then the container is back) counts for TTFMR with the part applied after it.
func TestTTFMRChangeStraddlingTheRestart(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	tg := "arn:tg/a"
	target := []fakeaws.Target{{ID: "10.0.0.9", Port: 80}}
	in := &Input{
		Calls: []fakeaws.Call{
			{Time: at(1.2), Service: "elbv2", Operation: "DeregisterTargets", TargetGroupARN: tg, Targets: target, Outcome: fakeaws.OutcomeOK},
			{Time: at(4), Service: "elbv2", Operation: "RegisterTargets", TargetGroupARN: tg, Targets: target, Outcome: fakeaws.OutcomeOK},
		},
		Origin: t0, End: 10,
		Restarts: []Restart{{Stopped: 2, Downtime: 1, Started: 3, At: 5, Mode: "crash"}},
		Changes: []Change{{ID: "c1", Kind: "container-restart", TGB: "ns/a", TargetGroupARN: tg, At: 1,
			Register: []tgbexpect.Target{{ID: "10.0.0.9", Port: 80}}, Deregister: []tgbexpect.Target{{ID: "10.0.0.9", Port: 80}}}},
	}
	out := Run(in)
	if got := out.Summary.TTFMRSeconds; got == nil || *got != 1 {
		t.Errorf("TTFMR = %v, want 1 (the register at 4 s, stop at 2 s + 1 s downtime)", deref(got))
	}
	if got := out.Changes[0].LatencySeconds; got == nil || *got != 3 {
		t.Errorf("latency = %v, want 3 (applied in full at 4 s, change at 1 s)", deref(got))
	}
}

// A standby that took over was sampled since long before the stop: only its CPU from the stop to
// the first meaningful mutation is the restart's.
func TestStandbyCPUCountsFromTheStop(t *testing.T) {
	tg := "arn:tg/a"
	t0 := time.Unix(100, 0)
	in := &Input{Origin: t0, End: 10, Restarts: []Restart{{Stopped: 1, Started: 1.01, At: 2, Mode: "crash"}},
		Calls: []fakeaws.Call{{Time: t0.Add(3 * time.Second), Service: "elbv2", Operation: "RegisterTargets", TargetGroupARN: tg,
			Targets: []fakeaws.Target{{ID: "10.0.0.9", Port: 80}}, Outcome: fakeaws.OutcomeOK}},
		Changes:        []Change{{ID: "c1", TGB: "ns/a", TargetGroupARN: tg, At: 0.5, Register: []tgbexpect.Target{{ID: "10.0.0.9", Port: 80}}}},
		ReplacementCPU: []CPUSample{{At: -60, Seconds: 0}, {At: 1, Seconds: 1.0}, {At: 3, Seconds: 1.3}, {At: 5, Seconds: 1.4}},
	}
	if c := Run(in).Summary.ControllerCPUSecondsBeforeFirstMeaningful; c == nil || *c != 0.3 {
		t.Errorf("CPU before the first meaningful mutation = %v, want 0.3 (1.3 at 3 s − 1.0 at the stop)", deref(c))
	}
}

// An Ingress-side change made while the controller was down is applied when AWS was seen to show
// it: its latency, the blind time and TTFMR count to then; one not yet seen is pending.
func TestIngressChangeAppliedWhenObserved(t *testing.T) {
	seen := 7.25
	in := &Input{
		Origin: time.Unix(0, 0), End: 20,
		Restarts: []Restart{{Stopped: 1, Downtime: 2, Started: 3, At: 4, Mode: "crash"}},
		// Two churn steps while the controller is down count as one; the step at 9 s ends the window.
		ChurnAt: []float64{1.5, 1.6, 9},
		Changes: []Change{
			{ID: "secret-content-0001", Kind: "secret-content", Ingress: "ns/web", At: 1.5, Observed: &seen},
			{ID: "ingress-rule-0002", Kind: "ingress-rule", Ingress: "ns/api", At: 1.6},
			{ID: "ingress-rule-0003", Kind: "ingress-rule", Ingress: "ns/api", At: 9, Observed: &seen},
		},
	}
	out := Run(in)
	if c := out.Changes[0]; c.Ingress != "ns/web" || c.LatencySeconds == nil || *c.LatencySeconds != 4.25 {
		t.Errorf("change = %+v (latency %v), want ns/web with latency 4.25 (seen at 7.25 s, replacement started at 3 s)", c, deref(c.LatencySeconds))
	}
	if got := out.Changes[1].AppliedSeconds; got != nil {
		t.Errorf("a change never seen applied has applied at %v, want none", *got)
	}
	if got := out.Summary.TTFMRSeconds; got == nil || *got != 4.25 {
		t.Errorf("TTFMR = %v, want 4.25 (seen at 7.25 s, stop at 1 s + 2 s downtime)", deref(got))
	}
	// The change never seen is censored at the run's end, 20 s − 3 s (the replacement's start).
	if b := out.Summary.BlindTime; b.Count != 2 || b.Censored != 1 || b.P50 != 10.625 || !b.P50Censored || b.Max != 17 ||
		out.Summary.BlindTimeChanges != 2 {
		t.Errorf("blind time = %+v of %d changes, want 4.25 s and ≥ 17 s out of 2 (the change at 9 s is the next step's)", b, out.Summary.BlindTimeChanges)
	}
	if u := out.Unapplied; len(u) != 1 || u[0].ID != "ingress-rule-0002" || u[0].Object != "ns/api" || u[0].NotAppliedAfterSeconds != 17 {
		t.Errorf("unapplied = %+v, want ingress-rule-0002 of ns/api, not applied after 17 s", u)
	}
	if got := Pending(in); got != 1 {
		t.Errorf("pending = %d, want 1 (the change not seen yet)", got)
	}
}

// A change to an object of a scenario's object group is applied when AWS was seen to show it; its
// first meaningful mutation is the first successful call the scenario names for the object's
// resource, at or after the change: a throttled call, another operation, another resource or an
// earlier call do not count.
func TestObjectChangeFirstMutationByNamedCall(t *testing.T) {
	tg, other := "arn:aws:elasticloadbalancing:us-west-2:000000000000:targetgroup/a/1", "arn:aws:elasticloadbalancing:us-west-2:000000000000:targetgroup/b/2"
	at := func(s float64) time.Time { return time.Unix(0, 0).Add(time.Duration(s * float64(time.Second))) }
	seen := 9.0
	in := &Input{
		Origin: time.Unix(0, 0), End: 20,
		Restarts: []Restart{{Stopped: 1, Downtime: 1, Started: 2, At: 3, Mode: "crash"}},
		ChurnAt:  []float64{1.5},
		Calls: []fakeaws.Call{
			{Time: at(1.2), Operation: "ModifyTargetGroup", TargetGroupARN: tg, Outcome: fakeaws.OutcomeOK},
			{Time: at(4), Operation: "ModifyTargetGroup", TargetGroupARN: tg, Outcome: fakeaws.OutcomeThrottled},
			{Time: at(5), Operation: "DescribeTargetGroups", TargetGroupARN: tg, Outcome: fakeaws.OutcomeOK},
			{Time: at(6), Operation: "ModifyTargetGroup", TargetGroupARN: other, Outcome: fakeaws.OutcomeOK},
			{Time: at(7.5), Operation: "ModifyTargetGroup", TargetGroupARN: tg, Outcome: fakeaws.OutcomeOK},
		},
		Changes: []Change{{ID: "patch-0001", Kind: "patch", Object: "targetgroups/ns/tg-1", ResourceID: tg,
			Mutations: []string{"ModifyTargetGroup"}, At: 1.5, Observed: &seen}},
	}
	out := Run(in)
	if got := out.Summary.TTFMRSeconds; got == nil || *got != 5.5 {
		t.Errorf("TTFMR = %v, want 5.5 (ModifyTargetGroup of the object's ARN at 7.5 s, origin 2 s)", deref(got))
	}
	if c := out.Changes[0]; c.Object != "targetgroups/ns/tg-1" || c.LatencySeconds == nil || *c.LatencySeconds != 7 {
		t.Errorf("change = %+v (latency %v), want the object's change applied 7 s after the replacement started (seen at 9 s)", c, deref(c.LatencySeconds))
	}
	in.Changes[0].Mutations = nil
	if got := Run(in).Summary.TTFMRSeconds; got == nil || *got != 7 {
		t.Errorf("TTFMR without named mutations = %v, want 7 (when AWS was seen to show it)", deref(got))
	}
}

// Quantiles' p50 is the harness's one median (the mean of the middle two for an even count); p95, p99
// and max are values of the sample.
func TestQuantilesMedianAndNearestRanks(t *testing.T) {
	got := Quantiles([]float64{4, 1, 3, 2})
	want := results.Quantiles{Count: 4, P50: 2.5, P95: 4, P99: 4, Max: 4}
	if got != want {
		t.Fatalf("Quantiles(1..4) = %+v, want %+v", got, want)
	}
	if got := Quantiles([]float64{0.0014, 0.0026, 10}); got.P50 != 0.003 || got.Max != 10 {
		t.Fatalf("Quantiles = %+v, want p50 0.003 (to the millisecond), max 10", got)
	}
}
