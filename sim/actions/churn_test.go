package actions

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// Every churn kind of the fleet records its event and its changes at the scenario second the
// clock shows when the step starts: a wall second is timeScale scenario seconds.
func TestChurnKindsRecordInScenarioTime(t *testing.T) {
	sc := &scenario.Scenario{}
	sc.Fleet.ContainerRestartDelay = scenario.D(20 * time.Second)
	r := newRig(t, sc, workload.Spec{TGBs: 8, Namespaces: 2, PodsPerService: 2, Nodes: 3, InstanceShare: 0.25, ReadinessGateShare: 0.5})
	churn := func(kind string) scenario.Step {
		return scenario.Step{Action: scenario.ActionChurn, Kind: kind, Services: 1, Count: 1, Duration: scenario.D(100 * time.Millisecond)}
	}
	steps := []scenario.Step{
		churn(scenario.ChurnScale), churn(scenario.ChurnRotate), churn(scenario.ChurnMixed), churn(scenario.ChurnAddTGB),
		churn(scenario.ChurnRemoveTGB), churn(scenario.ChurnRecreateService), churn(scenario.ChurnStaleGate),
		churn(scenario.ChurnReplaceNode), {Action: scenario.ActionContainerRestart, Pods: 1},
	}
	for i, st := range steps {
		r.wall.Step(time.Second)
		want := float64(timeScale * (i + 1))
		before := len(r.ex.recordedAt())
		if err := r.ex.Do(context.Background(), i, st); err != nil {
			t.Fatalf("%s %s: %v", st.Action, st.Kind, err)
		}
		if ev := r.ex.lastEvent(t); ev.AtSeconds != want {
			t.Errorf("%s %s: event %+v, want it at %gs", st.Action, st.Kind, ev, want)
		}
		at := r.ex.recordedAt()
		if len(at) == before {
			t.Errorf("%s %s: no change recorded", st.Action, st.Kind)
		}
		for _, s := range at {
			if s > want {
				t.Errorf("%s %s: a change at %gs, want it at %gs or at an earlier step's", st.Action, st.Kind, s, want)
			}
		}
		if n := count(at, want); n != len(at)-before {
			t.Errorf("%s %s: %d of the %d new changes at %gs", st.Action, st.Kind, n, len(at)-before, want)
		}
	}
	// A container restart keeps the run from being steady for the fleet's delay, in wall time.
	r.ex.mu.Lock()
	busy := r.ex.busyUntil.Sub(r.wall.Now())
	r.ex.mu.Unlock()
	if busy != 2*time.Second {
		t.Errorf("busy for %s of wall time after the container restart, want 2s (20s of scenario time)", busy)
	}
}

// A wait step waits its scenario duration on the clock, and ends with its context.
func TestWaitStepSleepsOnTheClock(t *testing.T) {
	r := newRig(t, &scenario.Scenario{}, workload.Spec{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.advanceWhenWaiting(ctx, 100*time.Millisecond)
	if err := r.ex.Do(ctx, 0, scenario.Step{Action: scenario.ActionWait, Duration: scenario.D(30 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if waited := r.wall.Since(r.t0); waited != 3*time.Second {
		t.Errorf("waited %s of wall time, want 3s (30s of scenario time)", waited)
	}
	stopped, stop := context.WithCancel(context.Background())
	stop()
	if err := r.ex.Do(stopped, 1, scenario.Step{Action: scenario.ActionWait, Duration: scenario.D(time.Hour)}); err == nil {
		t.Error("a wait whose context ended returned no error")
	}
}

func count(xs []float64, x float64) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

// Every Ingress churn kind records its change at the scenario second its step started, tracked by
// what AWS is seen to show.
func TestIngressChurnKindsRecordInScenarioTime(t *testing.T) {
	spec := workload.Spec{TGBs: 1, Namespaces: 1, Nodes: 2,
		Ingresses: workload.IngressSpec{Count: 4, GroupSize: 1, TLSShare: 1, OIDCShare: 1, ServicesPerIngress: 2}}
	r := newRig(t, &scenario.Scenario{}, spec.WithDefaults())
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing is polled: the test reads what was recorded
	r.ex.ingresses = observe.StartIngressApplied(ctx, r.aws, "cluster", time.Second)
	kinds := slices.Sorted(maps.Keys(scenario.IngressChurnKinds))
	for i, kind := range kinds {
		r.wall.Step(time.Second)
		if err := r.ex.Do(context.Background(), i, scenario.Step{Action: scenario.ActionChurn, Kind: kind, Services: 1}); err != nil {
			t.Fatalf("churn %s: %v", kind, err)
		}
		want := float64(timeScale * (i + 1))
		if ev := r.ex.lastEvent(t); ev.AtSeconds != want {
			t.Errorf("churn %s: event %+v, want it at %gs", kind, ev, want)
		}
		at := r.ex.recordedAt()
		if len(at) != i+1 || at[i] != want {
			t.Errorf("churn %s: changes at %v, want one more at %gs", kind, at, want)
		}
	}
}
