package workload

import (
	"bytes"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// TestProgressRateFollowsTheClock: the rate and ETA of a progress line are measured on the
// Options' clock, not the wall clock.
func TestProgressRateFollowsTheClock(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	var out bytes.Buffer
	p := newProgress(&out, 100, time.Hour, clk)
	p.Add(40)
	clk.SetTime(clk.Now().Add(20 * time.Second))
	p.Finish()
	want := "creating fleet: 40/100 steps (Kubernetes writes and AWS calls, 40%), 2/s, ETA 30s\n"
	if got := out.String(); got != want {
		t.Fatalf("progress line:\n got %q\nwant %q", got, want)
	}
}
