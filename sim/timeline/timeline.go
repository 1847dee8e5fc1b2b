package timeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/sim/scenario"
)

// Executor performs the steps. Implementations do the work; the engine decides when.
type Executor interface {
	// Do performs one action step; index is the step's position in the timeline.
	Do(ctx context.Context, index int, step scenario.Step) error
	// WaitSteady blocks until the steady state holds or timeout (wall time) passes; it reports
	// whether the steady state was reached.
	WaitSteady(ctx context.Context, index int, timeout time.Duration) (bool, error)
}

// LeaderWaiter is an Executor that can wait for waitFor: leader.
type LeaderWaiter interface {
	// WaitLeader blocks until the new instance of every earlier restart leads, or timeout (wall
	// time) passes; it reports whether they lead.
	WaitLeader(ctx context.Context, index int, timeout time.Duration) (bool, error)
}

// Planned is a step with its schedule resolved.
type Planned struct {
	Index int
	Step  scenario.Step
	// Absolute means Offset counts from the start of the timeline; otherwise from the end of the previous step.
	Absolute bool
	// Offset is scenario time.
	Offset time.Duration
}

// Plan resolves every step's schedule, drawing "at: random" offsets from rng in step order.
func Plan(steps []scenario.Step, rng *rand.Rand) []Planned {
	out := make([]Planned, len(steps))
	for i, st := range steps {
		p := Planned{Index: i, Step: st}
		switch {
		case st.At != nil && st.At.Random:
			within := scenario.DefaultWithin
			if st.Within != nil {
				within = st.Within.Duration
			}
			if within > 0 {
				p.Offset = time.Duration(rng.Int64N(int64(within)))
			}
		case st.At != nil:
			p.Absolute, p.Offset = true, st.At.Offset
		case st.After != nil:
			p.Offset = st.After.Duration
		}
		out[i] = p
	}
	return out
}

// Record is what happened to one step, in scenario seconds since the timeline started.
type Record struct {
	Index   int
	Action  string // action or "waitFor:<what>"
	Start   float64
	End     float64
	Reached *bool // waitFor only
	Err     error
}

// Engine runs planned steps.
type Engine struct {
	// Clock converts the steps' scenario delays into the wall delays it waits. Default the real
	// clock at time scale 1.
	Clock  scenario.Clock
	Exec   Executor
	Logger logr.Logger
}

// Run executes plan from start (wall time, the beginning of the measured phase). It stops at the
// first executor error and returns the records so far with it.
func (e *Engine) Run(ctx context.Context, start time.Time, plan []Planned) ([]Record, error) {
	clk := e.Clock
	log := e.Logger
	if log.GetSink() == nil {
		log = logr.Discard()
	}
	toScenario := func(t time.Time) float64 { return clk.Seconds(start, t) }
	prevEnd := start
	var recs []Record
	for _, p := range plan {
		due := prevEnd.Add(clk.Wall(p.Offset))
		if p.Absolute {
			due = start.Add(clk.Wall(p.Offset))
		}
		if err := clk.SleepUntil(ctx, due); err != nil {
			return recs, err
		}
		rec := Record{Index: p.Index, Action: p.Step.Action, Start: toScenario(clk.Now())}
		var err error
		if p.Step.WaitFor != "" {
			rec.Action = "waitFor:" + p.Step.WaitFor
			var ok bool
			switch lw, can := e.Exec.(LeaderWaiter); {
			case p.Step.WaitFor == scenario.WaitForLeader && can:
				ok, err = lw.WaitLeader(ctx, p.Index, clk.Wall(p.Step.Timeout.Duration))
				if err == nil && !ok {
					err = fmt.Errorf("no new leader within %s", p.Step.Timeout.Duration)
				}
			case p.Step.WaitFor == scenario.WaitForLeader:
				err = fmt.Errorf("the executor cannot wait for a leader")
			default:
				ok, err = e.Exec.WaitSteady(ctx, p.Index, clk.Wall(p.Step.Timeout.Duration))
			}
			rec.Reached = &ok
		} else {
			err = e.Exec.Do(ctx, p.Index, p.Step)
		}
		now := clk.Now()
		rec.End, rec.Err = toScenario(now), err
		recs = append(recs, rec)
		log.V(1).Info("step done", "index", p.Index, "action", rec.Action, "start", rec.Start, "end", rec.End, "err", err)
		if err != nil {
			return recs, fmt.Errorf("timeline[%d] %s: %w", p.Index, rec.Action, err)
		}
		prevEnd = now
	}
	return recs, nil
}
