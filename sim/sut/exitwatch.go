package sut

import (
	"context"
	"errors"
	"fmt"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/runerr"
)

// WatchExit returns a context cancelled, with the *ControllerExitError as its cause, as soon as one
// of ctrls' processes exits on its own; stop ends the watch.
func WatchExit(ctx context.Context, ctrls Controllers) (_ context.Context, stop func()) {
	rctx, cancel := context.WithCancelCause(ctx)
	exited := ctrls.Exited()
	if exited == nil {
		return rctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-exited:
			cancel(ctrls.ExitErr())
		case <-done:
		case <-rctx.Done():
		}
	}()
	return rctx, func() { close(done); cancel(nil) }
}

// StartFailure is err, or (when the controller exited on its own before the warm-up converged) a
// start failure: bad input or environment, exit code 2, since the run never measured anything.
func StartFailure(runCtx context.Context, err error) error {
	var ce *runerr.ControllerExitError
	if errors.As(context.Cause(runCtx), &ce) {
		return runerr.BadInput(fmt.Errorf("the controller did not start: %w", ce))
	}
	return err
}

// MeasuredFailure is err, or (when the controller exited on its own during the measured phase) a
// finding about the controller: an invariant violation (exit code 3), as a crash-looping
// controller leaves the fleet unreconciled.
func MeasuredFailure(runCtx context.Context, err error) error {
	var ce *runerr.ControllerExitError
	if errors.As(context.Cause(runCtx), &ce) {
		return &results.ViolationError{Kind: results.ViolationInvariant, Details: []string{"the controller exited during the measured phase: " + ce.Error()}}
	}
	return err
}
