package scenario

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/internal/testwait"
)

// A clock converts both ways between scenario and wall time, and sleeps scenario time on its wall
// clock until its context ends.
func TestClockConvertsAndSleeps(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	wall := clocktesting.NewFakeClock(t0)
	c := NewClock(20, wall)
	if c.Wall(10*time.Second) != 500*time.Millisecond || c.Scenario(500*time.Millisecond) != 10*time.Second ||
		c.Seconds(t0, t0.Add(time.Second)) != 20 || !c.Accelerated() {
		t.Fatalf("conversions at time scale 20: wall %s, scenario %s, seconds %g", c.Wall(10*time.Second),
			c.Scenario(500*time.Millisecond), c.Seconds(t0, t0.Add(time.Second)))
	}
	if z := (Clock{}); z.Scale() != 1 || z.Accelerated() || z.Wall(time.Second) != time.Second {
		t.Fatalf("the zero clock: scale %g, want the real clock at time scale 1", z.Scale())
	}
	done := make(chan error, 1)
	go func() { done <- c.Sleep(context.Background(), 10*time.Second) }()
	testwait.Until(t, time.Minute, "the sleep to wait on the clock", wall.HasWaiters)
	wall.Step(500 * time.Millisecond)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := c.SleepUntil(context.Background(), t0); err != nil {
		t.Fatalf("sleeping until an instant past: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Hour); err == nil {
		t.Fatal("a sleep whose context ended returned no error")
	}
}
