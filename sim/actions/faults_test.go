package actions

import (
	"context"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// A fault with a duration is set when its step runs and undone when its scenario duration has
// passed on the clock; the event spans both, in scenario seconds.
func TestFaultsEndOnTheClock(t *testing.T) {
	for _, tc := range []struct {
		name      string
		step      scenario.Step
		set, undo string
	}{
		{"errors", scenario.Step{Fault: scenario.FaultErrors, Operation: "RegisterTargets", Rate: 0.5, Code: "Throttling"},
			"errors RegisterTargets 0.5 Throttling", "errors RegisterTargets 0 Throttling"},
		{"latency", scenario.Step{Fault: scenario.FaultLatency, Operation: "RegisterTargets",
			Latency: &scenario.Latency{Base: *scenario.D(time.Second)}},
			"latency RegisterTargets 1s±0s", "latency RegisterTargets 0s±0s"},
		{"limit", scenario.Step{Fault: scenario.FaultLimit, Limits: map[string]scenario.Limit{"RegisterTargets": {Rate: 1, Burst: 2}}},
			"limit RegisterTargets 1/2", "clear limit RegisterTargets"},
		{"profile", scenario.Step{Fault: scenario.FaultProfile, Profile: "aws-documented"},
			"profile aws-documented", "profile unlimited"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := &scenario.Scenario{AWS: scenario.AWS{Profile: "unlimited"}}
			r := newRig(t, sc, workload.Spec{})
			st := tc.step
			st.Action, st.Duration = scenario.ActionAWSFault, scenario.D(20*time.Second)
			r.wall.Step(time.Second)
			if err := r.ex.Do(context.Background(), 0, st); err != nil {
				t.Fatal(err)
			}
			if ev := r.ex.lastEvent(t); ev.AtSeconds != 10 || ev.EndSeconds != 30 {
				t.Errorf("event %+v, want from 10s to 30s", ev)
			}
			testwait.Until(t, time.Minute, "the fault's end to wait on the clock", r.wall.HasWaiters)
			r.wall.Step(2*time.Second - time.Nanosecond)
			if calls := r.aws.recorded(); len(calls) != 1 || calls[0].what != tc.set {
				t.Fatalf("AWS asked %+v before the fault's end, want %q alone", calls, tc.set)
			}
			r.wall.Step(time.Nanosecond)
			r.ex.Wait()
			calls := r.aws.recorded()
			if len(calls) < 2 || calls[1].what != tc.undo || !calls[1].at.Equal(r.t0.Add(3*time.Second)) {
				t.Fatalf("AWS asked %+v, want %q at 3s of wall time", calls, tc.undo)
			}
		})
	}
}

// A fault still running when the measured phase ends is undone then, without waiting out its
// duration.
func TestFaultEndsWithItsContext(t *testing.T) {
	r := newRig(t, &scenario.Scenario{}, workload.Spec{})
	ctx, cancel := context.WithCancel(context.Background())
	st := scenario.Step{Action: scenario.ActionAWSFault, Fault: scenario.FaultErrors, Operation: "*", Rate: 1, Code: "InternalFailure",
		Duration: scenario.D(time.Hour)}
	if err := r.ex.Do(ctx, 0, st); err != nil {
		t.Fatal(err)
	}
	cancel()
	r.ex.Wait()
	if calls := r.aws.recorded(); len(calls) != 2 || calls[1].what != "errors * 0 InternalFailure" || !calls[1].at.Equal(r.t0) {
		t.Fatalf("AWS asked %+v, want the errors undone at once", calls)
	}
}

// An outage is fakeaws's to end: it is added with its scenario duration and nothing is undone.
func TestOutageIsAddedOnce(t *testing.T) {
	r := newRig(t, &scenario.Scenario{}, workload.Spec{})
	st := scenario.Step{Action: scenario.ActionAWSFault, Fault: scenario.FaultOutage, AWSServices: []string{"elbv2"}, Duration: scenario.D(time.Minute)}
	if err := r.ex.Do(context.Background(), 0, st); err != nil {
		t.Fatal(err)
	}
	r.wall.Step(time.Hour)
	r.ex.Wait()
	if calls := r.aws.recorded(); len(calls) != 1 || calls[0].what != "outage 1m0s [elbv2]" {
		t.Fatalf("AWS asked %+v, want one outage of a minute", calls)
	}
	if ev := r.ex.lastEvent(t); ev.AtSeconds != 0 || ev.EndSeconds != 60 {
		t.Errorf("event %+v, want from 0s to 60s", ev)
	}
}
