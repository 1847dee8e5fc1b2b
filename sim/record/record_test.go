package record

import (
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
)

// controllers counts the recorders' reads of a controller with one instance.
type controllers struct {
	mu                 sync.Mutex
	depth, work, memry int
}

func (c *controllers) QueueDepth() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.depth++
	return map[string]float64{"workqueue_depth:tgb": 3}
}

func (c *controllers) ScrapeWork() []sut.WorkPoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.work++
	return []sut.WorkPoint{{Instance: 1, At: time.Now(), Reconciles: float64(c.work)}}
}

func (c *controllers) ScrapeMemory() []sut.MemoryPoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.memry++
	return []sut.MemoryPoint{{Instance: 1, At: time.Now(), RSSBytes: 100}}
}

func (c *controllers) counts() (depth, work, memory int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.depth, c.work, c.memry
}

func (c *controllers) await(t *testing.T, what string, done func(depth, work, memory int) bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return done(c.counts()), nil
	})
	if err != nil {
		d, w, m := c.counts()
		t.Fatalf("%s: %d queue-depth samples, %d work and %d memory scrapes", what, d, w, m)
	}
}

// Each recorder starts at its moment, all stop together, and Collect fills the Input in scenario
// seconds, the work and memory attributed to the instance that took over.
func TestSetStartsEachRecorderAtItsMoment(t *testing.T) {
	c := &controllers{}
	s := New(Sources{Controllers: c, Clock: scenario.NewClock(1000, nil)})
	s.Start(AtControllerStart, time.Now())
	// A scrape reads at once when started: once memory was read, a started work scrape would have been too.
	c.await(t, "memory from the controllers' start", func(_, _, m int) bool { return m > 0 })
	if d, w, _ := c.counts(); d != 0 || w != 0 {
		t.Fatalf("before the measured phase: %d queue-depth samples, %d work scrapes; want none", d, w)
	}
	t0 := time.Now()
	s.Start(AtMeasuredPhase, t0)
	c.await(t, "the measured phase's recorders", func(d, w, _ int) bool { return d > 0 && w > 0 })
	s.Stop()
	s.Stop() // a failed run's cleanup stops the set again

	in := &measure.Input{}
	toSec := func(at time.Time) float64 { return at.Sub(t0).Seconds() }
	s.Collect(in, Conversion{ToSec: toSec, Seen: sut.Observations{Takeover: &sut.Takeover{Instance: 1, Started: t0},
		Work: sut.WorkSource{Source: "reference"}}})
	if len(in.Samples) == 0 || in.Samples[0].Series != "workqueue_depth:tgb" || in.Samples[0].Value != 3 {
		t.Errorf("queue-depth samples %+v", in.Samples)
	}
	if in.Work == nil || in.Work.Source != "reference" || in.Work.Started != 0 || len(in.Work.Samples) == 0 ||
		in.Work.Interval != sut.WorkScrapeInterval.Seconds() {
		t.Errorf("work %+v", in.Work)
	}
	if m := in.Memory; m == nil || m.Takeover == nil || *m.Takeover != 1 || m.Shared || len(m.Readings) == 0 || m.Readings[0].At >= 0 {
		t.Errorf("memory %+v: want the takeover's readings, the first before the measured phase", m)
	}
	if in.Machine == nil || in.Machine.CPUs == 0 {
		t.Errorf("machine %+v", in.Machine)
	}
}

// A run that fails before its measured phase stops and collects only what it started.
func TestSetStopsOnlyWhatStarted(t *testing.T) {
	c := &controllers{}
	s := New(Sources{Controllers: c, Clock: scenario.NewClock(1000, nil)})
	s.Stop() // nothing started: nothing to stop
	s.Start(AtControllerStart, time.Now())
	c.await(t, "memory", func(_, _, m int) bool { return m > 0 })
	s.Stop()
	in := &measure.Input{}
	s.Collect(in, Conversion{ToSec: func(time.Time) float64 { return 0 }})
	if in.Memory == nil || in.Memory.Takeover != nil || in.Samples != nil || in.Work != nil || in.Machine != nil {
		t.Fatalf("input %+v: want the memory alone, with no takeover", in)
	}
}
