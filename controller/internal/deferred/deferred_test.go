package deferred

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestScheduleWithinJitter(t *testing.T) {
	s := NewSchedule(30*time.Minute, 15*time.Minute, rand.New(rand.NewPCG(1, 2)))
	for i := 0; i < 1000; i++ {
		if d := s.Next(); d < 30*time.Minute || d >= 45*time.Minute {
			t.Fatalf("delay %v outside [30m, 45m)", d)
		}
	}
}

func TestQueueFiresAfterDelay(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	depth := prometheus.NewGauge(prometheus.GaugeOpts{Name: "d"})
	fired := make(chan types.NamespacedName, 4)
	q := NewQueue(QueueOptions{
		Schedule: NewSchedule(time.Minute, 0, nil), Clock: clk, Depth: depth, Log: logr.Discard(),
		Handle: func(_ context.Context, k types.NamespacedName) error { fired <- k; return nil },
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = q.Start(ctx) }()
	k := types.NamespacedName{Namespace: "ns", Name: "a"}
	q.Add(k)
	q.Add(k) // deduplicated
	if got := testutil.ToFloat64(depth); got != 1 {
		t.Fatalf("depth %v", got)
	}
	clk.Step(59 * time.Second)
	select {
	case <-fired:
		t.Fatal("fired early")
	case <-time.After(50 * time.Millisecond):
	}
	clk.Step(time.Second)
	select {
	case got := <-fired:
		if got != k {
			t.Fatalf("fired %v", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("did not fire")
	}
	if got := testutil.ToFloat64(depth); got != 0 {
		t.Fatalf("depth after fire %v", got)
	}
}

func TestTimers(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	depth := prometheus.NewGauge(prometheus.GaugeOpts{Name: "d"})
	tm := NewTimers(clk, depth)
	k := types.NamespacedName{Name: "a"}
	if armed, _, _ := tm.Check(k); armed {
		t.Fatal("armed before Arm")
	}
	tm.Arm(k, time.Minute)
	clk.Step(20 * time.Second)
	if left := tm.Arm(k, time.Hour); left != 40*time.Second {
		t.Fatalf("re-arm left %v", left)
	}
	if armed, due, left := tm.Check(k); !armed || due || left != 40*time.Second {
		t.Fatalf("check %v %v %v", armed, due, left)
	}
	clk.Step(40 * time.Second)
	if armed, due, _ := tm.Check(k); !armed || !due {
		t.Fatal("not due")
	}
	if armed, _, _ := tm.Check(k); armed || testutil.ToFloat64(depth) != 0 {
		t.Fatal("still armed after due")
	}
}

func TestProcessed(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	p := NewProcessed(time.Hour, clk)
	k := types.NamespacedName{Name: "a"}
	p.Mark(k)
	clk.Step(59 * time.Minute)
	if !p.Has(k) {
		t.Fatal("expired early")
	}
	clk.Step(time.Minute)
	if p.Has(k) {
		t.Fatal("kept past TTL")
	}
}
