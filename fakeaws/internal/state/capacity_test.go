package state

import (
	"testing"
	"time"
)

func TestAdvanceInstanceLifecycle(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := Instance{State: StatePending, RunningAt: t0.Add(15 * time.Second)}
	steps := []struct {
		at   time.Duration
		want string
		gone bool
	}{{14 * time.Second, StatePending, false}, {15 * time.Second, StateRunning, false}, {time.Hour, StateRunning, false}}
	for _, s := range steps {
		if gone := Advance(&in, t0.Add(s.at)); in.State != s.want || gone != s.gone {
			t.Fatalf("at %v: %s gone=%v, want %s", s.at, in.State, gone, s.want)
		}
	}
	in.State, in.TerminatedAt = StateShuttingDown, t0.Add(2*time.Hour)
	if Advance(&in, t0.Add(2*time.Hour-time.Second)); in.State != StateShuttingDown {
		t.Fatalf("terminated early: %s", in.State)
	}
	if gone := Advance(&in, t0.Add(2*time.Hour)); in.State != StateTerminated || gone {
		t.Fatalf("at TerminatedAt: %s gone=%v", in.State, gone)
	}
	if gone := Advance(&in, t0.Add(3*time.Hour-time.Second)); gone {
		t.Fatal("gone before its hour of visibility")
	}
	if gone := Advance(&in, t0.Add(3*time.Hour)); !gone {
		t.Fatal("still visible an hour after termination")
	}
	seeded := Instance{State: StateRunning}
	if Advance(&seeded, t0.Add(100*time.Hour)); seeded.State != StateRunning {
		t.Fatal("a seeded instance moved")
	}
}

func TestLaunchTerminateSettle(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := New(Config{AccountID: "123456789012", Region: "us-west-2", InstanceBootDelay: 10 * time.Second})
	sn := s.Subnets()[0]
	ins, err := s.Launch(t0, LaunchSpec{InstanceType: "m5.large", SubnetID: sn.ID}, 3)
	if err != nil || len(ins) != 3 || ins[0].PrivateIP == ins[1].PrivateIP || ins[0].State != StatePending {
		t.Fatalf("launch: %v %+v", err, ins)
	}
	ids := []string{ins[0].ID}
	if _, missing := s.Terminate(t0, []string{"i-0000000000000000"}); len(missing) != 1 {
		t.Fatal("terminating an unknown instance succeeded")
	}
	ch, _ := s.Terminate(t0.Add(5*time.Second), ids)
	if ch[0].Previous != StatePending || ch[0].Current != StateShuttingDown {
		t.Fatalf("changes: %+v", ch)
	}
	s.Settle(t0.Add(5*time.Second + ShutdownDelay))
	if got := s.AttachedENIs(ids)[ids[0]]; len(got) != 0 {
		t.Fatalf("a terminated instance keeps its ENIs: %+v", got)
	}
	again, err := s.Launch(t0, LaunchSpec{InstanceType: "m5.large", SubnetID: sn.ID}, 1)
	if err != nil || again[0].PrivateIP != ins[0].PrivateIP {
		t.Fatalf("the freed address is not reused: %v %+v", err, again)
	}
	s.Settle(t0.Add(2 * time.Hour))
	if n := len(s.Instances()); n != 3 {
		t.Fatalf("%d instances after the terminated one vanished, want 3", n)
	}
}
