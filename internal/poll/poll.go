package poll

import (
	"context"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// ErrTimeout is Until's error once the timeout passed with the condition still not holding.
var ErrTimeout = errors.New("timed out")

// ErrAborted is UntilAborted's error once its abort channel closed.
var ErrAborted = errors.New("aborted")

// Pace is the pause after a check that did not hold, given what that check took.
type Pace func(took time.Duration) time.Duration

// Every pauses d after each check, whatever it took.
func Every(d time.Duration) Pace { return func(time.Duration) time.Duration { return d } }

// Until calls cond at once, then again each time the pause pace gives has passed since the
// previous call returned, until cond holds (nil), fails (its error), ctx ends (ctx.Err()), or a
// call that did not hold returned after timeout had passed (ErrTimeout): the last check comes at
// or after the timeout, so a condition that holds by then is not reported as timed out. cond
// runs under whatever context it closes over, not one the timeout cancels.
func Until(ctx context.Context, timeout time.Duration, pace Pace, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	var took time.Duration
	check := func(context.Context) (bool, error) {
		at := time.Now()
		ok, err := cond()
		if ok || err != nil {
			return ok, err
		}
		now := time.Now()
		took = now.Sub(at)
		if now.After(deadline) {
			return false, ErrTimeout
		}
		return false, nil
	}
	// Sliding: the pause starts once a check returned, as the next one is paced by this one's cost.
	return wait.DelayFunc(func() time.Duration { return pace(took) }).Until(ctx, true, true, check)
}

// UntilAborted is Until that also stops, with ErrAborted, once abort closes; abort is seen
// between checks, never in the middle of one.
func UntilAborted(ctx context.Context, abort <-chan struct{}, timeout time.Duration, pace Pace, cond func() (bool, error)) error {
	loop, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-abort:
			cancel()
		case <-loop.Done():
		}
	}()
	err := Until(loop, timeout, pace, cond)
	if errors.Is(err, context.Canceled) && ctx.Err() == nil && loop.Err() != nil {
		return ErrAborted
	}
	return err
}
