package measure

import (
	"fmt"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// A controller that applies 4 of 8 object changes (as ACK never applies a TargetGroup's tag change):
// the blind time counts the 4 others as censored at the run's end, so its median and p95 are lower
// bounds, not the median of the 4 that landed; each is listed as unapplied.
func TestUnappliedChangesAreCensoredNotDropped(t *testing.T) {
	seen := []float64{20, 30, 31.5, 40}
	in := &Input{Origin: time.Unix(0, 0), End: 900, Restarts: []Restart{{Stopped: 0, Started: 0, At: 1, Mode: "crash"}}, ChurnAt: []float64{0}}
	for i := range 8 {
		ch := Change{ID: fmt.Sprintf("patch-tg-%04d", i+1), Kind: "patch", Object: fmt.Sprintf("targetgroups/ns/tg-%d", i), At: 0}
		if i%2 == 0 {
			ch.Observed = &seen[i/2]
		}
		in.Changes = append(in.Changes, ch)
	}
	out := Run(in)
	b := out.Summary.BlindTime
	if b.Count != 8 || b.Censored != 4 || !b.P50Censored || b.P50 != 470 || !b.P95Censored || b.P95 != 900 || out.Summary.BlindTimeChanges != 8 {
		t.Errorf("blind time %+v, want 8 values, 4 censored at 900 s: p50 ≥ 470 s ((40+900)/2), p95 ≥ 900 s", b)
	}
	if out.Summary.UnappliedChanges != 4 || len(out.Unapplied) != 4 {
		t.Fatalf("unapplied %d %+v, want the 4 changes never seen", out.Summary.UnappliedChanges, out.Unapplied)
	}
	if u := out.Unapplied[0]; u.ID != "patch-tg-0002" || u.Object != "targetgroups/ns/tg-1" || u.CensoredSeconds != 900 || u.NotAppliedAfterSeconds != 900 {
		t.Errorf("first unapplied %+v, want patch-tg-0002 of targetgroups/ns/tg-1, censored at 900 s", u)
	}
}

// A target change never applied while the end state holds every binding's targets was superseded
// (or needed no call): it is neither unapplied nor counted; with the end state wrong it is both.
func TestTargetChangeNeverAppliedCountsOnlyWhenTheEndStateIsWrong(t *testing.T) {
	tg := "arn:tg/a"
	t0 := time.Unix(0, 0)
	in := &Input{Origin: t0, End: 60, Restarts: []Restart{{Stopped: 1, Started: 1, At: 2, Mode: "crash"}}, ChurnAt: []float64{1.5},
		Calls: []fakeaws.Call{{Time: t0.Add(5 * time.Second), Operation: "RegisterTargets", TargetGroupARN: tg,
			Targets: []fakeaws.Target{{ID: "10.0.0.9", Port: 80}}, Outcome: fakeaws.OutcomeOK}},
		Changes: []Change{
			{ID: "scale-0001", TGB: "ns/a", TargetGroupARN: tg, At: 1.5, Register: []tgbexpect.Target{{ID: "10.0.0.9", Port: 80}}},
			{ID: "container-restart-0002", TGB: "ns/a", TargetGroupARN: tg, At: 1.5, Register: []tgbexpect.Target{{ID: "10.0.0.3", Port: 80}}, Deregister: []tgbexpect.Target{{ID: "10.0.0.3", Port: 80}}},
		}}
	for _, tc := range []struct {
		hold            bool
		count, censored int
		unapplied       int
	}{{hold: true, count: 1}, {hold: false, count: 2, censored: 1, unapplied: 1}} {
		in.TargetsHold = tc.hold
		out := Run(in)
		if b := out.Summary.BlindTime; b.Count != tc.count || b.Censored != tc.censored || out.Summary.UnappliedChanges != tc.unapplied || out.Summary.BlindTimeChanges != 2 {
			t.Errorf("targets hold %v: blind time %+v, %d unapplied; want %d values, %d censored, %d unapplied", tc.hold, b, out.Summary.UnappliedChanges, tc.count, tc.censored, tc.unapplied)
		}
	}
}

func TestCensoredQuantilesFlagOnlyWhatABoundReaches(t *testing.T) {
	q := CensoredQuantiles(nil)
	if q.Count != 0 || q.Censored != 0 {
		t.Errorf("none: %+v", q)
	}
	q = Quantiles([]float64{1, 2, 3})
	if q.Censored != 0 || q.P50Censored || q.MaxCensored {
		t.Errorf("measured only: %+v, want nothing censored", q)
	}
	q = CensoredQuantiles([]stats.Value{{V: 1}, {V: 2}, {V: 3}, {V: 4}, {V: 900.0004, Censored: true}})
	if q.P50 != 3 || q.P50Censored || q.Max != 900 || !q.MaxCensored || !q.P95Censored || q.Censored != 1 {
		t.Errorf("one bound above the rest: %+v, want p50 3 exact, p95 and max ≥ 900 s", q)
	}
}

// A controller that never deletes (external-dns under --policy=upsert-only) while ten records'
// Services are deleted, one of them re-addressed first: the ten deletes are unapplied, the patch of
// a Service a later delete removed is superseded (neither unapplied nor pending), and a patch of an
// object deleted before it, or of another object, still counts.
func TestObjectChangeALaterDeleteMadeMootIsSuperseded(t *testing.T) {
	in := &Input{Origin: time.Unix(0, 0), End: 600, Restarts: []Restart{{Stopped: 0, Started: 5, At: 6, Mode: "crash"}}, ChurnAt: []float64{1, 2}}
	in.Changes = append(in.Changes,
		Change{ID: "patch-services-0001", Kind: "patch", Object: "services/ns/svc-3", At: 1},
		Change{ID: "patch-services-0002", Kind: "patch", Object: "services/ns/svc-40", At: 1})
	for i := range 10 {
		in.Changes = append(in.Changes, Change{ID: fmt.Sprintf("delete-services-%04d", i+3), Kind: KindDelete, Object: fmt.Sprintf("services/ns/svc-%d", i), At: 2})
	}
	in.Changes = append(in.Changes, Change{ID: "patch-services-0013", Kind: "patch", Object: "services/ns/svc-5", At: 3})
	out := Run(in)
	if out.Summary.UnappliedChanges != 12 || len(out.Unapplied) != 12 {
		t.Fatalf("unapplied %d, want 12: 10 deletes, the patch of svc-40 (never deleted) and the patch of svc-5 (after its delete)", out.Summary.UnappliedChanges)
	}
	for _, u := range out.Unapplied {
		if u.ID == "patch-services-0001" {
			t.Errorf("the patch of svc-3, deleted later, is listed unapplied: %+v", u)
		}
	}
	if got := Pending(in); got != 12 {
		t.Errorf("pending = %d, want 12 (the superseded patch is not waited for)", got)
	}
}
