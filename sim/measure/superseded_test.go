package measure

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// A pod rotated twice while the controller was down (10.0.0.1 → .2 → .3): the controller registers
// only .3 and deregisters .1, so the first rotation's registration of .2 never comes. It is
// superseded, not pending; a change another binding's later change happens to touch, or one whose
// missing target nothing undid, still is.
func TestSupersededTargetChangeIsNotPending(t *testing.T) {
	t0 := time.Unix(0, 0)
	call := func(s float64, op, tg, ip string) fakeaws.Call {
		return fakeaws.Call{Time: t0.Add(time.Duration(s * float64(time.Second))), Service: fakeaws.ServiceELBv2, Operation: op,
			TargetGroupARN: tg, Targets: []fakeaws.Target{{ID: ip, Port: 80}}, Outcome: fakeaws.OutcomeOK}
	}
	target := func(ip string) []tgbexpect.Target { return []tgbexpect.Target{{ID: ip, Port: 80}} }
	rotations := []Change{
		{ID: "rotate-1", TGB: "ns/a", TargetGroupARN: "tg/a", At: 1, Register: target("10.0.0.2"), Deregister: target("10.0.0.1")},
		{ID: "rotate-2", TGB: "ns/a", TargetGroupARN: "tg/a", At: 2, Register: target("10.0.0.3"), Deregister: target("10.0.0.2")},
	}
	applied := []fakeaws.Call{call(5, "RegisterTargets", "tg/a", "10.0.0.3"), call(5, "DeregisterTargets", "tg/a", "10.0.0.1")}
	for _, tc := range []struct {
		name    string
		changes []Change
		calls   []fakeaws.Call
		want    int
	}{
		{"both rotations, the last applied", rotations, applied, 0},
		{"nothing applied yet", rotations, nil, 2},
		{"the first rotation alone", rotations[:1], applied, 1},
		{"the second rotation on another binding", []Change{rotations[0],
			{ID: "rotate-b", TGB: "ns/b", TargetGroupARN: "tg/b", At: 2, Register: target("10.0.0.3"), Deregister: target("10.0.0.2")}}, applied, 2},
		{"undone before it was made", []Change{{ID: "late", TGB: "ns/a", TargetGroupARN: "tg/a", At: 3, Register: target("10.0.0.2")},
			rotations[1]}, applied, 1},
	} {
		in := &Input{Origin: t0, End: 10, Calls: tc.calls, Changes: tc.changes}
		if got := Pending(in); got != tc.want {
			t.Errorf("%s: pending = %d, want %d", tc.name, got, tc.want)
		}
	}
}
