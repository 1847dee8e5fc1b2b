package poll

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	err := Until(context.Background(), time.Minute, Every(time.Millisecond), func() (bool, error) { calls++; return calls == 3, nil })
	if err != nil || calls != 3 {
		t.Fatalf("Until = %v after %d calls, want nil after 3", err, calls)
	}
}

func TestUntilReturnsTheConditionsError(t *testing.T) {
	boom := errors.New("boom")
	if err := Until(context.Background(), time.Minute, Every(time.Millisecond), func() (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Fatalf("Until = %v, want %v", err, boom)
	}
}

func TestUntilTimesOutOnlyAfterACheckPastTheTimeout(t *testing.T) {
	const timeout = 20 * time.Millisecond
	start := time.Now()
	var last time.Time
	err := Until(context.Background(), timeout, Every(time.Millisecond), func() (bool, error) { last = time.Now(); return false, nil })
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("Until = %v, want ErrTimeout", err)
	}
	if last.Sub(start) < timeout {
		t.Fatalf("the last check came %v after the start, before the timeout %v", last.Sub(start), timeout)
	}
}

func TestUntilChecksAtLeastOnceAndStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := Until(ctx, time.Minute, Every(time.Millisecond), func() (bool, error) { calls++; cancel(); return false, nil })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Fatalf("Until = %v after %d calls, want context.Canceled after 1", err, calls)
	}
}

func TestUntilPacesByWhatTheCheckTook(t *testing.T) {
	var took []time.Duration
	calls := 0
	pace := func(d time.Duration) time.Duration { took = append(took, d); return time.Millisecond }
	err := Until(context.Background(), time.Minute, pace, func() (bool, error) {
		calls++
		time.Sleep(5 * time.Millisecond) // the check's own cost, which the pace is given
		return calls == 3, nil
	})
	if err != nil || len(took) != 2 {
		t.Fatalf("Until = %v with %d paces, want nil with 2 (one after each check that did not hold)", err, len(took))
	}
	for _, d := range took {
		if d < 5*time.Millisecond {
			t.Fatalf("pace was given %v, less than the check took", d)
		}
	}
}

func TestUntilAbortedStopsOnceAbortCloses(t *testing.T) {
	abort := make(chan struct{})
	calls := 0
	// The pause is far longer than the test: only the abort can end the wait.
	err := UntilAborted(context.Background(), abort, time.Hour, Every(time.Hour), func() (bool, error) {
		calls++
		close(abort)
		return false, nil
	})
	if !errors.Is(err, ErrAborted) || calls != 1 {
		t.Fatalf("UntilAborted = %v after %d calls, want ErrAborted after 1", err, calls)
	}
}

func TestUntilAbortedTellsTheCallersContextFromAnAbort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	err := UntilAborted(ctx, make(chan struct{}), time.Minute, Every(time.Millisecond), func() (bool, error) { cancel(); return false, nil })
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrAborted) {
		t.Fatalf("UntilAborted = %v, want the context's own error", err)
	}
}
