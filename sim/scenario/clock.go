package scenario

import (
	"context"
	"time"

	"k8s.io/utils/clock"
)

const (
	// DefaultTimeScale is the time scale of a scenario that sets none: scenario time is wall time.
	DefaultTimeScale = 1.0
	maxTimeScale     = 10000
)

// Clock is the one owner of scenario time. A scenario's delays, rates and results are scenario
// time, which runs TimeScale times faster than the wall clock the harness sleeps on; every
// conversion between the two goes through a Clock. The zero Clock is the real clock at time scale 1.
type Clock struct {
	// scale is scenario seconds per wall second.
	scale float64
	wall  clock.WithTicker
}

// NewClock is a clock whose scenario time runs scale times faster than wall (nil: the real clock).
func NewClock(scale float64, wall clock.WithTicker) Clock { return Clock{scale: scale, wall: wall} }

// Clock is the scenario's clock on the real wall clock.
func (s *Scenario) Clock() Clock { return NewClock(s.TimeScale, nil) }

// Scale is scenario seconds per wall second, for what outside the harness scales by it itself (fakeaws's
// token buckets, a controller's client-side throttle).
func (c Clock) Scale() float64 {
	if c.scale <= 0 {
		return DefaultTimeScale
	}
	return c.scale
}

// Accelerated reports whether scenario time runs faster than wall time, which a controller whose
// timers run on the wall clock cannot follow.
func (c Clock) Accelerated() bool { return c.Scale() != 1 }

func (c Clock) clock() clock.WithTicker {
	if c.wall == nil {
		return clock.RealClock{}
	}
	return c.wall
}

// Now is the wall time now.
func (c Clock) Now() time.Time { return c.clock().Now() }

// Wall converts a scenario duration into wall time.
func (c Clock) Wall(d time.Duration) time.Duration { return time.Duration(float64(d) / c.Scale()) }

// Scenario converts a wall duration into scenario time.
func (c Clock) Scenario(d time.Duration) time.Duration { return time.Duration(float64(d) * c.Scale()) }

// Seconds is the scenario seconds from the wall instant from to to.
func (c Clock) Seconds(from, to time.Time) float64 { return to.Sub(from).Seconds() * c.Scale() }

// After delivers the wall time once the scenario duration d has passed.
func (c Clock) After(d time.Duration) <-chan time.Time { return c.clock().After(c.Wall(d)) }

// NewTicker ticks every scenario period d.
func (c Clock) NewTicker(d time.Duration) clock.Ticker { return c.clock().NewTicker(c.Wall(d)) }

// Sleep waits the scenario duration d, or until ctx ends (its error).
func (c Clock) Sleep(ctx context.Context, d time.Duration) error {
	return c.sleepWall(ctx, c.Wall(d))
}

// SleepUntil waits until the wall instant t, or until ctx ends (its error); an instant past returns
// at once.
func (c Clock) SleepUntil(ctx context.Context, t time.Time) error {
	return c.sleepWall(ctx, t.Sub(c.Now()))
}

func (c Clock) sleepWall(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.clock().After(d):
		return nil
	}
}

// defaultClock sets the time scale of a scenario that sets none.
func (s *Scenario) defaultClock(unset func(path string, zero bool) bool) {
	if unset("timeScale", s.TimeScale == 0) {
		s.TimeScale = DefaultTimeScale
	}
}

// validateClock checks the time scale's range.
func (v *validator) validateClock(s *Scenario) {
	if s.TimeScale <= 0 || s.TimeScale > maxTimeScale || (v.given("timeScale") && s.TimeScale == 0) {
		v.addf("timeScale", "must be greater than 0 and at most %d, got %g", maxTimeScale, s.TimeScale)
	}
}

// clockValid reports whether the time scale is one a run can use (validateClock reports it
// otherwise).
func (s *Scenario) clockValid() bool { return s.TimeScale > 0 }

// wallClock reports whether scenario time is wall time, as a controller whose timers run on the
// wall clock needs; scale is the time scale, for a message.
func (s *Scenario) wallClock() (ok bool, scale float64) { return s.TimeScale == 1, s.TimeScale }
