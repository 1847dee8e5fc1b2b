package deferred

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestScheduleWithinJitter(t *testing.T) {
	s := NewSchedule(30*time.Minute, 15*time.Minute, 1)
	for i := range 1000 {
		k := types.NamespacedName{Namespace: "ns", Name: fmt.Sprintf("tgb-%d", i)}
		if d := s.Next(k); d < 30*time.Minute || d >= 45*time.Minute {
			t.Fatalf("delay %v outside [30m, 45m)", d)
		}
	}
}

// TestScheduleIndependentOfCallOrder: each key's delays depend on (seed, key, round) only, not
// on which goroutine reaches the schedule first or how calls of different keys interleave.
func TestScheduleIndependentOfCallOrder(t *testing.T) {
	keys := scheduleKeys(500)
	want := map[types.NamespacedName][2]time.Duration{}
	s := NewSchedule(time.Minute, time.Minute, 42)
	for _, k := range keys {
		want[k] = [2]time.Duration{s.Next(k), s.Next(k)}
	}
	shuffled := append([]types.NamespacedName(nil), keys...)
	rand.New(rand.NewPCG(7, 8)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	s2 := NewSchedule(time.Minute, time.Minute, 42)
	var mu sync.Mutex
	got := map[types.NamespacedName][]time.Duration{}
	var wg sync.WaitGroup
	for w := range 4 { // concurrent workers, each taking every 4th key, both rounds interleaved with others
		wg.Go(func() {
			for i := w; i < len(shuffled); i += 4 {
				k := shuffled[i]
				d0 := s2.Next(k)
				d1 := s2.Next(k)
				mu.Lock()
				got[k] = []time.Duration{d0, d1}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, k := range keys {
		if g := got[k]; g[0] != want[k][0] || g[1] != want[k][1] {
			t.Fatalf("%v: delays %v in shuffled concurrent order, %v in sequential order", k, g, want[k])
		}
		if want[k][0] == want[k][1] {
			t.Fatalf("%v: two rounds drew the same delay %v", k, want[k][0])
		}
	}
}

// TestScheduleScalesWithJitter: the same seed gives a key the same fraction of the window at
// every time scale (timeScale 10 vs 60 runs scale the durations, not the seed).
func TestScheduleScalesWithJitter(t *testing.T) {
	slow := NewSchedule(30*time.Minute, 15*time.Minute, 9)
	fast := NewSchedule(30*time.Minute/6, 15*time.Minute/6, 9)
	for _, k := range scheduleKeys(200) {
		a, b := slow.For(k, 0)-slow.Delay, fast.For(k, 0)-fast.Delay
		if diff := a - 6*b; diff < 0 || diff > 6 { // floor rounding only: < 6 ns
			t.Fatalf("%v: jitter %v at scale 1 vs %v×6 at scale 6", k, a, b)
		}
	}
}

// TestScheduleSpreadsUniformly: over many keys the jitter fills [0, Jitter) evenly (chi-square
// over 20 buckets), per round as well as across rounds of one key.
func TestScheduleSpreadsUniformly(t *testing.T) {
	const buckets, n = 20, 20000
	s := NewSchedule(0, time.Hour, 3)
	keys := scheduleKeys(n)
	counts := make([]int, buckets)
	for _, k := range keys {
		counts[int(s.For(k, 0)*buckets/time.Hour)]++
	}
	checkUniform(t, "keys, round 0", counts, n)
	counts = make([]int, buckets)
	k := types.NamespacedName{Namespace: "ns", Name: "one"}
	for r := range uint64(n) {
		counts[int(s.For(k, r)*buckets/time.Hour)]++
	}
	checkUniform(t, "one key, many rounds", counts, n)
}

func checkUniform(t *testing.T, what string, counts []int, n int) {
	t.Helper()
	exp := float64(n) / float64(len(counts))
	chi2 := 0.0
	for _, c := range counts {
		chi2 += (float64(c) - exp) * (float64(c) - exp) / exp
	}
	// 19 degrees of freedom: P(chi2 > 43.8) = 0.001. Deterministic inputs, so this never flakes.
	if chi2 > 43.8 {
		t.Fatalf("%s: chi-square %.1f over %d buckets, counts %v: not uniform", what, chi2, len(counts), counts)
	}
}

func TestScheduleSeedsDiffer(t *testing.T) {
	a, b := NewSchedule(0, time.Hour, 1), NewSchedule(0, time.Hour, 2)
	same := 0
	keys := scheduleKeys(1000)
	for _, k := range keys {
		if a.For(k, 0) == b.For(k, 0) {
			same++
		}
	}
	if same > 1 {
		t.Fatalf("%d of %d keys got the same delay under different seeds", same, len(keys))
	}
	if c := NewSchedule(0, time.Hour, 1); c.For(keys[0], 0) != a.For(keys[0], 0) {
		t.Fatal("same seed, different delay")
	}
}

func TestScheduleForget(t *testing.T) {
	s := NewSchedule(0, time.Hour, 5)
	k := types.NamespacedName{Namespace: "ns", Name: "a"}
	first := s.Next(k)
	if s.Next(k) == first {
		t.Fatal("second round repeated the first delay")
	}
	s.Forget(k)
	if s.Next(k) != first {
		t.Fatal("after Forget the key did not restart at round 0")
	}
}

func scheduleKeys(n int) []types.NamespacedName {
	out := make([]types.NamespacedName, n)
	for i := range out {
		out[i] = types.NamespacedName{Namespace: fmt.Sprintf("ns-%d", i%7), Name: fmt.Sprintf("tgb-%d", i)}
	}
	return out
}

func TestQueueFiresAfterDelay(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	depth := prometheus.NewGauge(prometheus.GaugeOpts{Name: "d"})
	fired := make(chan types.NamespacedName, 4)
	q := NewQueue(QueueOptions{
		Schedule: NewSchedule(time.Minute, 0, 0), Clock: clk, Depth: depth, Log: logr.Discard(),
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
