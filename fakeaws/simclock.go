package fakeaws

import (
	"time"

	"k8s.io/utils/clock"
)

// simClock maps the base clock to scenario time.
type simClock struct {
	base  clock.Clock
	start time.Time
	// origin is the scenario time at start: start itself, or a snapshot's time, so that a restored
	// server's clock continues from the moment its resources were copied.
	origin time.Time
	scale  float64
}

func newSimClock(base clock.Clock, scale float64, origin time.Time) simClock {
	start := base.Now()
	if origin.IsZero() {
		origin = start
	}
	return simClock{base: base, start: start, origin: origin, scale: scale}
}

func (c simClock) Now() time.Time {
	return c.origin.Add(c.scenario(c.base.Now().Sub(c.start)))
}

// wall converts a scenario duration to a base-clock duration.
func (c simClock) wall(d time.Duration) time.Duration { return time.Duration(float64(d) / c.scale) }

// scenario converts a base-clock duration to a scenario duration.
func (c simClock) scenario(d time.Duration) time.Duration {
	if c.scale == 1 {
		return d
	}
	return time.Duration(float64(d) * c.scale)
}

// gofakes3 time source in scenario time.
func (c simClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
