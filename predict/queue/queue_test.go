package queue

import (
	"math"
	"testing"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
		t.Errorf("%s = %.9f, want %.9f", what, got, want)
	}
}

func calls(n int, bucket string, s float64) []Call {
	out := make([]Call, n)
	for i := range out {
		out[i] = Call{Bucket: bucket, Seconds: s}
	}
	return out
}

// One worker draining one bucket: the j-th call (from 1) gets its token at max(0, (j − burst)/rate),
// so the object at position p, whose last call is the c(p+1)-th, is done then.
func TestOneWorkerOneBucketClosedForm(t *testing.T) {
	const n, c, rate, burst = 500, 3, 10.0, 40.0
	res, err := Simulate([]Kind{{Name: "tg", Objects: n, Workers: 1, Calls: calls(c, "describe", 0)}},
		map[string]Bucket{"describe": {Rate: rate, Burst: burst}})
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < n; p++ {
		near(t, "done", res.Done[0][p], max(0, (float64(c*(p+1))-burst)/rate))
	}
	near(t, "end", res.End, (float64(c*n)-burst)/rate)
	if res.Calls["describe"] != c*n {
		t.Errorf("calls = %d, want %d", res.Calls["describe"], c*n)
	}
}

// Without a throttle, W workers take the objects in turns: position p is done after
// floor(p/W)+1 objects' worth of service time.
func TestWorkersWithoutThrottleClosedForm(t *testing.T) {
	const n, c, w, s = 101, 2, 4, 0.25
	res, err := Simulate([]Kind{{Name: "tgb", Objects: n, Workers: w, Start: 1.5, Calls: calls(c, "ec2", s)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for p := 0; p < n; p++ {
		near(t, "done", res.Done[0][p], 1.5+float64(p/w+1)*c*s)
	}
}

// A slow worker under a fast bucket is bound by its own pace, and a fast one under a slow bucket by
// the bucket: the end is the larger of the two bounds once the burst is spent.
func TestPaceOrBucketBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    float64
		want float64
	}{
		{"worker-bound", 0.5, 1000 * 0.5},           // 2 calls/s < 10/s: the bucket never empties
		{"bucket-bound", 0.001, (1000 - 10.0) / 10}, // the 1000th token comes at (1000 − burst)/rate
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Simulate([]Kind{{Name: "k", Objects: 1000, Workers: 1, Calls: calls(1, "b", tc.s)}},
				map[string]Bucket{"b": {Rate: 10, Burst: 10}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.End; math.Abs(got-tc.want) > 0.01*tc.want {
				t.Errorf("end = %.3f, want %.3f ±1%%", got, tc.want)
			}
		})
	}
}

// Two kinds asking one bucket together take equal shares: while both have calls to make, each gets
// half the rate, and once one is done the other gets all of it.
func TestKindsShareABucketEqually(t *testing.T) {
	const rate = 10.0
	res, err := Simulate([]Kind{
		{Name: "a", Objects: 100, Workers: 1, Calls: calls(1, "b", 0)},
		{Name: "b", Objects: 300, Workers: 1, Calls: calls(1, "b", 0)},
	}, map[string]Bucket{"b": {Rate: rate, Burst: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// 200 calls at 10/s finish a's 100 (every other token); b then has 200 left at the full rate.
	if got, want := res.Done[0][99], 200/rate; math.Abs(got-want) > 0.5 { // alone it would be done at 10 s
		t.Errorf("a done at %.2f, want %.2f (half the rate)", got, want)
	}
	near(t, "end", res.End, (400-1)/rate)
}

// A share of 0.25 falls on every fourth object, whatever the queue's length.
func TestExtraCallsSpreadByShare(t *testing.T) {
	k := Kind{Name: "k", Objects: 1000, Workers: 3, Calls: calls(2, "d", 0.01),
		Extra: []Extra{{Call: Call{Bucket: "m", Seconds: 0.01}, Share: 0.25}}}
	res, err := Simulate([]Kind{k}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls["m"] != 250 || res.Calls["d"] != 2000 {
		t.Errorf("calls = %v, want m 250 and d 2000", res.Calls)
	}
	if len(k.callsOf(3)) != 3 || len(k.callsOf(4)) != 2 {
		t.Errorf("object 3 makes %d calls, object 4 %d: want 3 and 2", len(k.callsOf(3)), len(k.callsOf(4)))
	}
}

func TestRejectsAKindWithoutWorkers(t *testing.T) {
	if _, err := Simulate([]Kind{{Name: "k", Objects: 1}}, nil); err == nil {
		t.Fatal("no error for a kind without workers")
	}
}

// A hundred thousand objects simulate in well under a second (the prediction runs hundreds of
// queue orders from one simulation).
func BenchmarkHundredThousandObjects(b *testing.B) {
	kinds := []Kind{
		{Name: "tg", Objects: 100_000, Workers: 1, Calls: calls(3, "describe", 0.002)},
		{Name: "lb", Objects: 50, Workers: 1, Calls: calls(6, "describe", 0.002)},
	}
	for b.Loop() {
		if _, err := Simulate(kinds, map[string]Bucket{"describe": {Rate: 10, Burst: 40}}); err != nil {
			b.Fatal(err)
		}
	}
}
