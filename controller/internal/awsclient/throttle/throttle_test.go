package throttle

import (
	"context"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/throttlespec"
)

func TestThrottlerWaitsSharedLimiter(t *testing.T) {
	cfg, _ := throttlespec.Parse("S:^A|^B=20:1")
	var waits int
	th := New(cfg, func(_, _ string, d time.Duration) {
		if d > 20*time.Millisecond {
			waits++
		}
	})
	ctx := context.Background()
	start := time.Now()
	for _, op := range []string{"A", "B", "A", "B"} { // shared bucket: burst 1, 20/s
		if err := th.Wait(ctx, "S", op); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 120*time.Millisecond {
		t.Fatalf("4 calls at 20/s burst 1 took %v; limiter not shared", el)
	}
	for i := 0; i < 5; i++ { // unmatched op and service: free
		_ = th.Wait(ctx, "S", "C")
		_ = th.Wait(ctx, "Other", "A")
	}
	if waits < 2 {
		t.Fatalf("observe saw %d waits", waits)
	}
}
