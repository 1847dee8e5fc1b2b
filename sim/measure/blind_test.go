package measure

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// A restart at 2 s with 1 s downtime: a change pending at the stop, one made during the downtime
// and one before the second churn step after the stop are the restart's; that step's is not. Blind time is timed
// from max(change, origin); TTFMR is the luckiest of them.
func TestBlindTimeCountsTheRestartsChanges(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	reg := func(s float64, tg, ip string) fakeaws.Call {
		return fakeaws.Call{Time: at(s), Service: fakeaws.ServiceELBv2, Operation: "RegisterTargets", TargetGroupARN: tg,
			Targets: []fakeaws.Target{{ID: ip, Port: 80}}, Outcome: fakeaws.OutcomeOK}
	}
	calls := []fakeaws.Call{
		{Time: at(3.5), Service: fakeaws.ServiceEC2, Operation: "DescribeVpcs", Outcome: fakeaws.OutcomeOK},
		{Time: at(3.6), Service: fakeaws.ServiceELBv2, Operation: "DescribeTargetHealth", TargetGroupARN: "tg/a", Outcome: fakeaws.OutcomeOK},
		reg(4, "tg/c", "10.0.0.3"), reg(9, "tg/a", "10.0.0.1"), reg(13, "tg/b", "10.0.0.2"), reg(31, "tg/d", "10.0.0.4"),
	}
	synced := 3.4
	// The old leader synced long before the stop; the replacement took over and synced at 3.4 s.
	in := &Input{Calls: calls, Origin: t0, End: 40, CachesSynced: []float64{-20, synced}, ChurnAt: []float64{1.5, 2.5, 30},
		Restarts: []Restart{{Stopped: 2, Started: 3.1, At: 3.3, Downtime: 1, Mode: "crash", LeaderElection: true, Leading: ptrTo(3.3)}},
		Changes: []Change{
			{ID: "pending", TargetGroupARN: "tg/a", At: 1.5, Register: []tgbexpect.Target{{ID: "10.0.0.1", Port: 80}}},
			{ID: "down", TargetGroupARN: "tg/b", At: 2.5, Register: []tgbexpect.Target{{ID: "10.0.0.2", Port: 80}}},
			{ID: "after", TargetGroupARN: "tg/c", At: 3.5, Register: []tgbexpect.Target{{ID: "10.0.0.3", Port: 80}}},
			{ID: "later", TargetGroupARN: "tg/d", At: 30, Register: []tgbexpect.Target{{ID: "10.0.0.4", Port: 80}}},
		},
	}
	out := Run(in)
	s := out.Summary
	// Latencies from max(change, origin 3 s): 9-3, 13-3, 4-3.5.
	if s.BlindTimeChanges != 3 || s.BlindTime.Count != 3 || s.BlindTime.P50 != 6 || s.BlindTime.Max != 10 {
		t.Errorf("blind time %+v over %d changes, want p50 6, max 10 over 3", s.BlindTime, s.BlindTimeChanges)
	}
	if s.TTFMRSeconds == nil || *s.TTFMRSeconds != 1 {
		t.Errorf("TTFMR = %v, want 1 (4 s - origin 3 s)", deref(s.TTFMRSeconds))
	}
	ph := out.Restart
	if ph == nil || ph.StoppedSeconds != 2 || ph.OriginSeconds != 3 || ph.StartedSeconds != 3.1 || !ph.LeaderElection {
		t.Fatalf("phases %+v", ph)
	}
	for name, got := range map[string]*float64{"leading": ph.LeadingSeconds, "synced": ph.CachesSyncedSeconds,
		"first AWS call": ph.FirstAWSCallSeconds, "first meaningful": ph.FirstMeaningfulSeconds} {
		want := map[string]float64{"leading": 3.3, "synced": 3.4, "first AWS call": 3.5, "first meaningful": 4}[name] // EC2 counts as any service does
		if got == nil || *got != want {
			t.Errorf("%s = %v, want %v", name, deref(got), want)
		}
	}
}

// Every restart gets its own breakdown, each step within the restart's window (until the next
// stop); the caches-synced step is the instance's that took over, a standby's included.
func TestRestartPhasesOfEveryRestart(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	call := func(s float64, op, tg, ip string) fakeaws.Call {
		c := fakeaws.Call{Time: at(s), Service: fakeaws.ServiceELBv2, Operation: op, TargetGroupARN: tg, Outcome: fakeaws.OutcomeOK}
		if ip != "" {
			c.Targets = []fakeaws.Target{{ID: ip, Port: 80}}
		}
		return c
	}
	calls := []fakeaws.Call{
		call(16.2, "DescribeTargetHealth", "tg/a", ""), call(16.5, "RegisterTargets", "tg/a", "10.0.0.1"),
		// After the second crash: a reconcile, and the change made during it applied.
		call(47, "DescribeTargetHealth", "tg/b", ""), call(48, "RegisterTargets", "tg/b", "10.0.0.2"),
	}
	in := &Input{Calls: calls, Origin: t0, End: 90,
		// Instances' caches synced: the first leader (before the run), the standby once it led after
		// the first crash, and the second crash's taker-over.
		CachesSynced: []float64{-30, 16.1, 46.5},
		Restarts: []Restart{
			{Stopped: 0, Started: 0.1, At: 16, Mode: "crash", LeaderElection: true, Leading: ptrTo(16)},
			{Stopped: 30, Started: 30.1, At: 46, Mode: "crash", LeaderElection: true, Leading: ptrTo(46)},
		},
		Changes: []Change{
			{ID: "first", TargetGroupARN: "tg/a", At: 1, Register: []tgbexpect.Target{{ID: "10.0.0.1", Port: 80}}},
			{ID: "second", TargetGroupARN: "tg/b", At: 31, Register: []tgbexpect.Target{{ID: "10.0.0.2", Port: 80}}},
		},
	}
	out := Run(in)
	if len(out.Restarts) != 2 || out.Restart != &out.Restarts[0] {
		t.Fatalf("%d restarts' phases, first %p of %p", len(out.Restarts), out.Restart, &out.Restarts)
	}
	want := []map[string]float64{
		{"leading": 16, "synced": 16.1, "first AWS call": 16.2, "first meaningful": 16.5},
		{"leading": 46, "synced": 46.5, "first AWS call": 47, "first meaningful": 48},
	}
	for i, ph := range out.Restarts {
		got := map[string]*float64{"leading": ph.LeadingSeconds, "synced": ph.CachesSyncedSeconds,
			"first AWS call": ph.FirstAWSCallSeconds, "first meaningful": ph.FirstMeaningfulSeconds}
		for name, w := range want[i] {
			if got[name] == nil || *got[name] != w {
				t.Errorf("restart %d: %s = %v, want %v", i+1, name, deref(got[name]), w)
			}
		}
	}
	// The summary's cache sync counts from the Lease, not from the replacement's start.
	if c := out.Summary.CacheSyncSeconds; c == nil || *c != 0.1 {
		t.Errorf("cache sync = %v, want 0.1 (16.1 s - the Lease at 16 s)", deref(c))
	}
	if s := out.Summary.TTFMRSeconds; s == nil || *s != 16.5 {
		t.Errorf("TTFMR = %v, want 16.5", deref(s))
	}

	// A second restart that never reaches AWS has no steps after its own stop, not the first's.
	in.Calls = calls[:2]
	in.CachesSynced = in.CachesSynced[:2]
	out = Run(in)
	ph := out.Restarts[1]
	if ph.CachesSyncedSeconds != nil || ph.FirstAWSCallSeconds != nil || ph.FirstMeaningfulSeconds != nil {
		t.Errorf("second restart borrowed steps: synced %v, reconcile %v, meaningful %v",
			deref(ph.CachesSyncedSeconds), deref(ph.FirstAWSCallSeconds), deref(ph.FirstMeaningfulSeconds))
	}
}

// A controller that calls only Route53 (external-dns, ACK's Route53 controller) reaches AWS all the
// same: its first call of any service is the breakdown's step, named with its service.
func TestFirstAWSCallOfAControllerThatCallsOnlyRoute53(t *testing.T) {
	t0 := time.Unix(0, 0)
	calls := []fakeaws.Call{
		{Time: t0.Add(7 * time.Second), Service: fakeaws.ServiceRoute53, Operation: "ListHostedZones", Outcome: fakeaws.OutcomeOK},
		{Time: t0.Add(9 * time.Second), Service: fakeaws.ServiceRoute53, Operation: "ChangeResourceRecordSets", Outcome: fakeaws.OutcomeOK},
	}
	in := &Input{Calls: calls, Origin: t0, End: 60, Restarts: []Restart{{Stopped: 0, Started: 5, At: 5, Mode: "crash"}}}
	ph := Run(in).Restart
	if ph == nil || ph.FirstAWSCallSeconds == nil || *ph.FirstAWSCallSeconds != 7 || ph.FirstAWSCallService != fakeaws.ServiceRoute53 {
		t.Fatalf("phases %+v, want the first AWS call at 7 s, of route53", ph)
	}
}
