package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/restartsim/restartsim/sim/runerr"
)

// exitWatcher is implemented by controllers that run as child processes: Exited is closed when one
// of them ended without the harness stopping it, and ExitErr (a *ControllerExitError) says which.
type exitWatcher interface {
	Exited() <-chan struct{}
	ExitErr() error
}

// watchExit returns a context cancelled, with the *ControllerExitError as its cause, as soon as one
// of ctrls' processes exits on its own; stop ends the watch.
func watchExit(ctx context.Context, ctrls controllers) (_ context.Context, stop func()) {
	rctx, cancel := context.WithCancelCause(ctx)
	w, ok := ctrls.(exitWatcher)
	if !ok {
		return rctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-w.Exited():
			cancel(w.ExitErr())
		case <-done:
		case <-rctx.Done():
		}
	}()
	return rctx, func() { close(done); cancel(nil) }
}

// startFailure is err, or (when the controller exited on its own before the warm-up converged) a
// start failure: bad input or environment, exit code 2, since the run never measured anything.
func startFailure(runCtx context.Context, err error) error {
	var ce *runerr.ControllerExitError
	if errors.As(context.Cause(runCtx), &ce) {
		return runerr.BadInput(fmt.Errorf("the controller did not start: %w", ce))
	}
	return err
}

// measuredFailure is err, or (when the controller exited on its own during the measured phase) a
// finding about the controller: an invariant violation (exit code 3), as a crash-looping
// controller leaves the fleet unreconciled.
func measuredFailure(runCtx context.Context, err error) error {
	var ce *runerr.ControllerExitError
	if errors.As(context.Cause(runCtx), &ce) {
		return &runerr.ViolationError{Kind: runerr.ViolationInvariant, Details: []string{"the controller exited during the measured phase: " + ce.Error()}}
	}
	return err
}
