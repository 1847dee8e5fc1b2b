package fakeaws

import (
	"sync"
	"time"
)

// Clock is the time source of a Server.
type Clock interface {
	Now() time.Time
	// After behaves like time.After.
	After(d time.Duration) <-chan time.Time
}

// RealClock is the wall clock.
type RealClock struct{}

// Now implements Clock.
func (RealClock) Now() time.Time { return time.Now() }

// After implements Clock.
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// FakeClock is a manual Clock for tests: time moves only with Advance or Set.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []fakeWaiter
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

// NewFakeClock returns a FakeClock at t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

// Now implements Clock.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After implements Clock; the channel fires when the clock is advanced to or past now+d.
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the clock forward by d and fires due waiters.
func (c *FakeClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// Set moves the clock to t (never backwards) and fires due waiters.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
			continue
		}
		kept = append(kept, w)
	}
	c.waiters = kept
}

// Waiters returns how many After channels are pending (tests use it to wait for a sleeping request).
func (c *FakeClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// simClock maps the base clock to scenario time.
type simClock struct {
	base  Clock
	start time.Time
	// origin is the scenario time at start: start itself, or a snapshot's time, so that a restored
	// server's clock continues from the moment its resources were copied.
	origin time.Time
	scale  float64
}

func newSimClock(base Clock, scale float64, origin time.Time) simClock {
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
