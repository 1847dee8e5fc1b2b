package predict

import (
	"errors"
	"math"
	"testing"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/predict/queue"
	"github.com/restartsim/restartsim/results"
)

// throttledQueue is a model of three workers re-reading n objects with one describe each behind the
// documented describe bucket, backing off 1 s when turned away, at the given pace.
func throttledQueue(n int, pace float64) *Model {
	return &Model{Fleet: n, Buckets: map[string]queue.Bucket{"elbv2/describe": {Rate: 10, Burst: 40}},
		Kinds: []Kind{{Name: "targetgroup", Objects: n, Scales: true, Workers: 3, Pace: pace, Throttled: 0.1, Backoff: 1,
			PerObject: []BucketCalls{{Bucket: "elbv2/describe", Calls: 1}}}}}
}

func throttledCount(t *testing.T, m *Model) int {
	t.Helper()
	res, err := queue.Simulate(m.queueKinds(m.Fleet), m.Buckets)
	if err != nil {
		t.Fatal(err)
	}
	return res.Throttled["elbv2/describe"]
}

// A model whose pace was misread three times too slow is brought back to the pace that turns away as
// many calls as the run did.
func TestPaceIsCalibratedToTheRunsThrottledCount(t *testing.T) {
	const truePace = 0.05
	run := throttledQueue(1000, truePace)
	want := throttledCount(t, run)
	if want < 20 {
		t.Fatalf("the run's queue throttled %d calls: too few for a test", want)
	}
	m := throttledQueue(1000, 3*truePace)
	if got := throttledCount(t, m); got > want*3/4 {
		t.Fatalf("at three times the pace the queue throttles %d calls, the run %d: the test cannot tell them apart", got, want)
	}
	m.Throttled = want
	if err := m.calibratePace(); err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(float64(m.ModelThrottled - want)); d > 0.1*float64(want) {
		t.Errorf("calibrated model throttles %d, the run %d", m.ModelThrottled, want)
	}
	if p := m.Kinds[0].Pace; p < truePace/1.5 || p > truePace*1.5 {
		t.Errorf("calibrated pace %.3f s (×%.2f), want about %.3f s", p, m.PaceScale, truePace)
	}
}

// A run AWS never throttled keeps the pace its calm gaps showed.
func TestUnthrottledRunKeepsItsPace(t *testing.T) {
	m := throttledQueue(1000, 0.3)
	if err := m.calibratePace(); err != nil {
		t.Fatal(err)
	}
	if m.PaceScale != 1 || m.Kinds[0].Pace != 0.3 {
		t.Errorf("pace %.3f (×%.2f), want 0.3 unscaled", m.Kinds[0].Pace, m.PaceScale)
	}
}

// A call that names no resource before the re-read's first reconcile (an STS GetCallerIdentity at
// start-up) is start-up: the re-read starts at the first call that names a resource.
func TestLeadingUnnamedCallIsStartUp(t *testing.T) {
	run := oneWorkerRun(300, 20, []int{41, 97, 266}, -1, 0)
	sts := fakeaws.Call{Time: origin.Add(15*1e9 + 1e8), Service: "sts", Operation: "GetCallerIdentity", Outcome: fakeaws.OutcomeOK, Bucket: "sts/request"}
	run.Calls = append([]fakeaws.Call{sts}, run.Calls...)
	m, err := Fit(run)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m.Start-20) > 1e-6 || m.Calls != 900+3 {
		t.Errorf("start %.3f s and %d calls, want 20 s and the re-read's 903", m.Start, m.Calls)
	}
	for _, b := range m.Kinds[0].PerObject {
		if b.Bucket == "sts/request" {
			t.Errorf("calls an object %+v: the start-up call was charged to the first target group", m.Kinds[0].PerObject)
		}
	}
}

// A run that declares its steady state before the re-read reached its last objects (they have no
// change to wait for) still has them in its queue: the target groups AWS held before the restart
// and the re-read did not reach are its tail, at the run's size and ten times it.
func TestUnreachedObjectsAreTheQueuesTail(t *testing.T) {
	const n, reached = 300, 270
	run := oneWorkerRun(n, 20, []int{41, 97, 266}, -1, 0)
	var before, kept []fakeaws.Call
	for p := range n {
		before = append(before, call(1+float64(p)/1000, "DescribeTargetHealth", tgARN(p)))
	}
	for _, c := range run.Calls {
		if c.TargetGroupARN < tgARN(reached) {
			kept = append(kept, c)
		}
	}
	run.Calls = append(before, kept...)
	st := run.Strategy
	steady := kept[len(kept)-1].Time.Sub(origin).Seconds() + 1 - st.Restart.OriginSeconds
	st.Summary.SteadyStateSeconds = &steady
	m, err := Fit(run)
	if err != nil {
		t.Fatal(err)
	}
	k := m.Kinds[0]
	if k.Objects != n || k.Unreached != n-reached || math.Abs(k.PerObject[0].Calls-3) > 1e-9 {
		t.Fatalf("kind %d objects, %d unreached, %+v an object; want %d, %d, 3 describes", k.Objects, k.Unreached, k.PerObject, n, n-reached)
	}
	check, err := m.Explain()
	if err != nil {
		t.Fatal(err)
	}
	if r := check.Residual(); r > 0.05 {
		t.Errorf("residual %.3f on a run the model made", r)
	}
	f, err := m.Forecast(10*n, 100, 7)
	if err != nil {
		t.Fatal(err)
	}
	if want := 20 + (3*10*n-40)/10.0; math.Abs(f.Steady-m.Settle-want) > 0.02*want {
		t.Errorf("steady %.1f, want %.1f + settle %.1f: the tail is missing", f.Steady, want, m.Settle)
	}
}

// A restart's mutations apply its changes, whose number does not grow with the fleet: at ten times
// the fleet the run's three ModifyTargetGroup calls stay three, where its describes grow tenfold.
func TestMutationsDoNotGrowWithTheFleet(t *testing.T) {
	m, err := Fit(oneWorkerRun(300, 20, []int{41, 97, 266}, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Forecast(3000, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if f.Calls["elbv2/mutating"] != 3 || f.Calls["elbv2/describe"] != 9000 {
		t.Errorf("calls at 3000: %v, want the run's 3 mutations and 9000 describes", f.Calls)
	}
}

// A change a later one made moot has no applied time and is not listed unapplied: it is left out,
// not refused as never applied. One the run lists unapplied still refuses the fit.
func TestSupersededChangeIsLeftOut(t *testing.T) {
	for _, listed := range []bool{false, true} {
		run := oneWorkerRun(300, 20, []int{41, 97, 266}, -1, 0)
		st := run.Strategy
		st.Invariants.Passed = !listed
		st.Changes = append(st.Changes, results.Change{ID: "moot", Kind: "rotate-pod-ips", TGB: "default/b", AtSeconds: 11})
		if listed {
			st.Unapplied = []results.UnappliedChange{{ID: "moot"}}
		}
		m, err := Fit(run)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Explain()
		var u *Unexplained
		switch {
		case listed && !errors.As(err, &u):
			t.Errorf("an unapplied change: err = %v, want it refused", err)
		case !listed && (err != nil || len(m.Changes) != 3):
			t.Errorf("a superseded change: err = %v, %d changes placed, want the other 3", err, len(m.Changes))
		}
	}
}
