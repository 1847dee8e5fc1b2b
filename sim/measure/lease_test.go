package measure

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// A crash at 10 s with 5 s of downtime: the replacement starts at 15.2 s, first asks for the Lease
// at 15.6 s (the crashed leader's renewals before the stop do not count), holds it at 32 s and
// applies the first change at 33.5 s. The split adds up to TTFMR; blind time after the Lease
// times each change from the Lease.
func TestLeaseSplitAddsUpToTTFMR(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	reg := func(s float64, tg, ip string) fakeaws.Call {
		return fakeaws.Call{Time: at(s), Service: fakeaws.ServiceELBv2, Operation: "RegisterTargets", TargetGroupARN: tg,
			Targets: []fakeaws.Target{{ID: ip, Port: 80}}, Outcome: fakeaws.OutcomeOK}
	}
	in := &Input{Calls: []fakeaws.Call{reg(33.5, "tg/a", "10.0.0.1"), reg(35, "tg/b", "10.0.0.2")}, Origin: t0, End: 60,
		ChurnAt: []float64{12}, HasAudit: true,
		Audit: []AuditEvent{
			{At: 8, Verb: "update", Resource: "leases", Code: 200}, // the old leader's renewal
			{At: 15.7, Verb: "get", Resource: "targetgroupbindings", Code: 200},
			{At: 17.6, Verb: "get", Resource: "leases", Code: 200}, // logged before the earlier one
			{At: 15.6, Verb: "get", Resource: "leases", Code: 200},
			{At: 32, Verb: "update", Resource: "leases", Code: 200},
		},
		Restarts: []Restart{{Stopped: 10, Downtime: 5, Started: 15.2, At: 32, Mode: "crash", LeaderElection: true, Leading: ptrTo(32)}},
		Changes: []Change{
			{ID: "a", TargetGroupARN: "tg/a", At: 12, Register: []tgbexpect.Target{{ID: "10.0.0.1", Port: 80}}},
			{ID: "b", TargetGroupARN: "tg/b", At: 12, Register: []tgbexpect.Target{{ID: "10.0.0.2", Port: 80}}},
		},
	}
	out := Run(in)
	if got := out.Restart.LeaseRequestedSeconds; got == nil || *got != 15.6 {
		t.Errorf("Lease first requested at %v, want 15.6", deref(got))
	}
	m := out.Summary.Metrics()
	want := map[string]float64{results.MetricStartupBeforeLease: 0.6, results.MetricLeaseWait: 17,
		results.MetricTTFMRAfterLease: 1.5, results.MetricBlindAfterLeaseP50: 2.25, results.MetricTTFMR: 18.5}
	for name, w := range want {
		if got, ok := m[name]; !ok || got != w {
			t.Errorf("%s = %v (%v), want %v", name, got, ok, w)
		}
	}

	// Without leader election there is no split; without an audit log no first request.
	in.Restarts[0].LeaderElection = false
	if l := Run(in).Summary.Lease; l != nil {
		t.Errorf("split without leader election: %+v", l)
	}
	in.Restarts[0].LeaderElection, in.HasAudit = true, false
	if l := Run(in).Summary.Lease; l == nil || l.StartupBeforeLeaseSeconds != nil || l.WaitSeconds == nil {
		t.Errorf("without an audit log: %+v, want the wait without the start-up before the Lease", l)
	}
}
