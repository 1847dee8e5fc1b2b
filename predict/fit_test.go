package predict

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
)

var origin = time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)

func tgARN(i int) string {
	return fmt.Sprintf("arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/tg-%05d/%016x", i, i)
}

func call(at float64, op, arn string) fakeaws.Call {
	bucket := "elbv2/describe"
	if op == "ModifyTargetGroup" {
		bucket = "elbv2/mutating"
	}
	return fakeaws.Call{Time: origin.Add(time.Duration(at * float64(time.Second))), Service: "elbv2", Operation: op,
		TargetGroupARN: arn, Outcome: fakeaws.OutcomeOK, Bucket: bucket}
}

// oneWorkerRun is a controller that re-reads n target groups with three describes each, one worker,
// behind the documented describe bucket (10/s, burst 40), starting `start` seconds after the
// restart's origin; the changed positions get a ModifyTargetGroup at the end of their turn. gap adds
// a pause after the object at position pauseAt, which no bucket explains.
func oneWorkerRun(n int, start float64, changed []int, pauseAt int, gap float64) *Run {
	const stopped, downtime = 10.0, 5.0
	o := stopped + downtime
	var calls []fakeaws.Call
	var changes []results.Change
	extra := 0.0
	isChanged := map[int]bool{}
	for _, p := range changed {
		isChanged[p] = true
	}
	for p := 0; p < n; p++ {
		for j := 1; j <= 3; j++ {
			k := 3*p + j
			calls = append(calls, call(o+start+extra+max(0, float64(k-40))/10, "DescribeTargetHealth", tgARN(p)))
		}
		if isChanged[p] {
			at := o + start + extra + max(0, float64(3*(p+1)-40))/10 + 0.001
			calls = append(calls, call(at, "ModifyTargetGroup", tgARN(p)))
			applied := at
			changes = append(changes, results.Change{ID: fmt.Sprintf("c%d", p), Kind: "patch", Object: "tg/default/" + tgARN(p),
				AtSeconds: stopped + 1, AppliedSeconds: &applied})
		}
		if p == pauseAt {
			extra += gap
		}
	}
	last := calls[len(calls)-1].Time.Sub(origin).Seconds()
	steady := last + 1 - o
	st := results.Strategy{Name: "s", CallLogOrigin: &origin, Changes: changes,
		Restart: &results.RestartPhases{StoppedSeconds: stopped, OriginSeconds: o, StartedSeconds: o},
		Summary: results.Summary{SteadyStateSeconds: &steady, Objects: results.Objects{Groups: map[string]int{"targetgroups": n}}}}
	res := &results.Results{Strategies: []results.Strategy{st}, Environment: results.Environment{AWSProfile: "aws-documented"}}
	return &Run{Results: res, Strategy: &res.Strategies[0], Calls: calls}
}

func TestFitRecoversOneWorkerQueue(t *testing.T) {
	m, err := Fit(oneWorkerRun(300, 20, []int{41, 97, 266}, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if m.Fleet != 300 || m.FleetName != "targetgroups" || len(m.Kinds) != 1 {
		t.Fatalf("fleet %d %s, kinds %+v", m.Fleet, m.FleetName, m.Kinds)
	}
	k := m.Kinds[0]
	if k.Name != "targetgroup" || k.Objects != 300 || !k.Scales || k.Workers != 1 {
		t.Errorf("kind %+v", k)
	}
	if d := k.PerObject[0]; d.Bucket != "elbv2/describe" || math.Abs(d.Calls-3) > 1e-9 {
		t.Errorf("calls an object %+v, want 3 elbv2/describe", k.PerObject)
	}
	if math.Abs(m.Start-20) > 1e-6 {
		t.Errorf("start %.3f, want 20", m.Start)
	}
	positions := map[string]int{}
	for _, c := range m.Changes {
		positions[c.ID] = c.Position
	}
	if positions["c41"] != 41 || positions["c97"] != 97 || positions["c266"] != 266 {
		t.Errorf("positions %v", positions)
	}
	check, err := m.Explain()
	if err != nil {
		t.Fatal(err)
	}
	if r := check.Residual(); r > 0.05 {
		t.Errorf("residual %.3f on a run the model made", r)
	}
}

// At ten times the fleet, a one-worker queue behind one bucket is the closed form: the object at
// position p is done when its 3(p+1)-th token comes, (3(p+1) − 40)/10 s after the first call.
func TestForecastMatchesClosedFormAtTenTimes(t *testing.T) {
	m, err := Fit(oneWorkerRun(300, 20, []int{41, 97, 266}, -1, 0))
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Forecast(3000, 2000, 7)
	if err != nil {
		t.Fatal(err)
	}
	if f.Objects["targetgroup"] != 3000 {
		t.Fatalf("objects %v", f.Objects)
	}
	wantEnd := 20 + (3*3000-40)/10.0
	if math.Abs(f.Steady-m.Settle-wantEnd) > 0.02*wantEnd {
		t.Errorf("steady %.1f, want %.1f + settle %.1f", f.Steady, wantEnd, m.Settle)
	}
	// Three changes at uniform positions: their median sits at the middle of the queue on average.
	mid := 20 + (3*1500-40)/10.0
	if math.Abs(f.BlindP50.Median-mid) > 0.1*mid || f.BlindP50.Low >= f.BlindP50.Median || f.BlindP50.High <= f.BlindP50.Median {
		t.Errorf("blind p50 %v, want about %.0f s with a spread around it", f.BlindP50, mid)
	}
	if f.Calls["elbv2/describe"] != 9000 {
		t.Errorf("calls %v, want 9000 describes", f.Calls)
	}
}

func TestUnexplainedPauseIsRefused(t *testing.T) {
	m, err := Fit(oneWorkerRun(300, 20, []int{41, 97, 266}, 150, 120))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Explain()
	var why *Unexplained
	if !errors.As(err, &why) {
		t.Fatalf("Explain = %v, want Unexplained", err)
	}
	t.Log(err)
}

func TestRunsWithoutAQueueAreRefused(t *testing.T) {
	noSteady := oneWorkerRun(10, 1, nil, -1, 0)
	noSteady.Strategy.Summary.SteadyStateSeconds = nil
	fault := oneWorkerRun(10, 1, nil, -1, 0)
	fault.Strategy.Events = []results.Event{{Kind: "awsFault", AtSeconds: 16, EndSeconds: 18, Detail: "throttle"}}
	override := oneWorkerRun(10, 1, nil, -1, 0)
	override.Calls[0].Bucket = "op/DescribeTargetHealth"
	for name, run := range map[string]*Run{"no steady state": noSteady, "fault": fault, "own bucket": override} {
		_, err := Fit(run)
		var why *Unexplained
		if !errors.As(err, &why) {
			t.Errorf("%s: Fit = %v, want Unexplained", name, err)
		}
	}
}

// A change whose mutation the call log does not show waits in the queue of its group's other
// changes, not in the largest kind's.
func TestUnplacedChangeTakesItsGroupsKind(t *testing.T) {
	changes := []QueuedChange{{ID: "a", Kind: "listener", Position: 1}, {ID: "b", Position: -1}, {ID: "c", Position: -1}}
	kindOfUnplaced(changes, []string{"listeners", "listeners", "rules"})
	if changes[1].Kind != "listener" || changes[2].Kind != "" {
		t.Errorf("kinds %q, %q: want listener for the listeners' change and none for the rules'", changes[1].Kind, changes[2].Kind)
	}
}
