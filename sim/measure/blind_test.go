package measure

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
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
	in := &Input{Calls: calls, Origin: t0, End: 40, CacheSynced: &synced, ChurnAt: []float64{1.5, 2.5, 30},
		Restarts: []Restart{{Stopped: 2, Started: 3.1, At: 3.3, Downtime: 1, Mode: "crash", LeaderElection: true, Leading: ptrTo(3.3)}},
		Changes: []Change{
			{ID: "pending", TargetGroupARN: "tg/a", At: 1.5, Register: []Target{{"10.0.0.1", 80}}},
			{ID: "down", TargetGroupARN: "tg/b", At: 2.5, Register: []Target{{"10.0.0.2", 80}}},
			{ID: "after", TargetGroupARN: "tg/c", At: 3.5, Register: []Target{{"10.0.0.3", 80}}},
			{ID: "later", TargetGroupARN: "tg/d", At: 30, Register: []Target{{"10.0.0.4", 80}}},
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
		"first reconcile": ph.FirstReconcileSeconds, "first meaningful": ph.FirstMeaningfulSeconds} {
		want := map[string]float64{"leading": 3.3, "synced": 3.4, "first reconcile": 3.6, "first meaningful": 4}[name]
		if got == nil || *got != want {
			t.Errorf("%s = %v, want %v", name, deref(got), want)
		}
	}
}
