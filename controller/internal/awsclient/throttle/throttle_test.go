package throttle

import (
	"context"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/throttlespec"
)

// waitOnce is Wait with a deadline a minute away: the limiter refuses at once, without waiting, a call
// whose token is due later than that.
func waitOnce(th *Throttler, serviceID, operation string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return th.Wait(ctx, serviceID, operation)
}

// TestThrottlerSharesOneLimiterAcrossARulesOperations: operations matching one rule draw on one bucket;
// others are not limited. The bucket refills once in 1,000 s, so no machine is slow enough to see a
// token come back during the test.
func TestThrottlerSharesOneLimiterAcrossARulesOperations(t *testing.T) {
	cfg, err := throttlespec.Parse("S:^A|^B=0.001:1")
	if err != nil {
		t.Fatal(err)
	}
	th := New(cfg, nil)
	if err := waitOnce(th, "S", "A"); err != nil {
		t.Fatalf("the first call: %v", err)
	}
	for _, op := range []string{"A", "B"} {
		if err := waitOnce(th, "S", op); err == nil {
			t.Fatalf("S/%s after S/A took the one token: not limited by the shared bucket", op)
		}
	}
	for range 5 { // an unmatched operation, an unmatched service: free
		if err := waitOnce(th, "S", "C"); err != nil {
			t.Fatalf("S/C: %v", err)
		}
		if err := waitOnce(th, "Other", "A"); err != nil {
			t.Fatalf("Other/A: %v", err)
		}
	}
}

// TestThrottlerReportsEachWait: observe hears of every call let through, with its service, operation
// and a wait no longer than the call took; the limiter held the calls (4 at 20/s with a burst of 1 take
// at least 150 ms: a bound a slow machine only makes easier to meet).
func TestThrottlerReportsEachWait(t *testing.T) {
	cfg, err := throttlespec.Parse("S:^A=20:1")
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		op     string
		waited time.Duration
	}
	var seen []call
	th := New(cfg, func(serviceID, op string, d time.Duration) {
		if serviceID != "S" {
			t.Errorf("observed service %q", serviceID)
		}
		seen = append(seen, call{op, d})
	})
	start := time.Now()
	var took []time.Duration
	for _, op := range []string{"A", "A", "A", "A", "C"} {
		begin := time.Now()
		if err := th.Wait(context.Background(), "S", op); err != nil {
			t.Fatal(err)
		}
		took = append(took, time.Since(begin))
	}
	elapsed := time.Since(start)
	if len(seen) != 5 {
		t.Fatalf("observed %d calls, want 5: %v", len(seen), seen)
	}
	for i, c := range seen {
		if want := []string{"A", "A", "A", "A", "C"}[i]; c.op != want || c.waited < 0 || c.waited > took[i] {
			t.Errorf("call %d: observed %s waiting %v; want %s, waiting no longer than its %v", i, c.op, c.waited, want, took[i])
		}
	}
	if elapsed < 150*time.Millisecond {
		t.Fatalf("4 calls at 20/s with a burst of 1 took %v, want at least 150ms: the limiter held none", elapsed)
	}
}
