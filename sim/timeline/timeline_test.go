package timeline

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/sim/scenario"
)

// fakeClock advances instantly to whatever After asks for.
type fakeClock struct{ *clocktesting.FakeClock }

func (c fakeClock) After(d time.Duration) <-chan time.Time {
	c.Step(d)
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

type exec struct {
	clk   *fakeClock
	calls []string
	at    []time.Time
}

func (e *exec) Do(_ context.Context, _ int, st scenario.Step) error {
	e.calls, e.at = append(e.calls, st.Action), append(e.at, e.clk.Now())
	if st.Action == scenario.ActionWait {
		e.clk.After(st.Duration.Duration / 10)
	}
	return nil
}

func (e *exec) WaitSteady(_ context.Context, _ int, timeout time.Duration) (bool, error) {
	e.calls, e.at = append(e.calls, "wait"), append(e.at, e.clk.Now())
	e.clk.After(timeout / 2)
	return true, nil
}

func TestEngineSchedulesInScenarioTime(t *testing.T) {
	t0 := time.Unix(1000, 0)
	clk := &fakeClock{clocktesting.NewFakeClock(t0)}
	ex := &exec{clk: clk}
	steps := []scenario.Step{
		{Action: scenario.ActionRestart, At: &scenario.At{Offset: 10 * time.Second}},
		{Action: scenario.ActionChurn, After: scenario.D(20 * time.Second)},
		{Action: scenario.ActionWait, Duration: scenario.D(30 * time.Second)},
		{WaitFor: scenario.WaitForSteadyState, Timeout: scenario.D(100 * time.Second)},
	}
	eng := &Engine{Clock: scenario.NewClock(10, clk), Exec: ex}
	recs, err := eng.Run(context.Background(), t0, Plan(steps, rand.New(rand.NewPCG(1, 2))))
	if err != nil {
		t.Fatal(err)
	}
	// restart at 10 s scenario = 1 s wall; churn 20 s later = 3 s wall; the wait takes 3 s wall.
	want := []time.Duration{time.Second, 3 * time.Second, 3 * time.Second, 6 * time.Second}
	for i, w := range want {
		if got := ex.at[i].Sub(t0); got != w {
			t.Errorf("step %d ran at %v wall, want %v", i, got, w)
		}
	}
	if recs[3].Start != 60 || recs[3].End != 110 || recs[3].Reached == nil || !*recs[3].Reached {
		t.Errorf("waitFor record = %+v", recs[3])
	}
}

func TestPlanRandomIsSeeded(t *testing.T) {
	steps := []scenario.Step{{Action: scenario.ActionRestart, At: &scenario.At{Random: true}, Within: scenario.D(5 * time.Second)}}
	a := Plan(steps, rand.New(rand.NewPCG(7, 7)))[0].Offset
	b := Plan(steps, rand.New(rand.NewPCG(7, 7)))[0].Offset
	if a != b || a < 0 || a >= 5*time.Second {
		t.Fatalf("offsets %v %v", a, b)
	}
}
