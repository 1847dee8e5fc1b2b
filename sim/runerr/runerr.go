// Package runerr is how a simulation run ends when it does not succeed: bad input or a missing
// environment (nothing was measured), or a finding about the controller (an invariant or threshold
// violated, a controller process that exited on its own).
package runerr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/restartsim/restartsim/sim/env"
)

// Violation kinds.
const (
	ViolationInvariant = "invariant"
	ViolationThreshold = "threshold"
)

// ViolationError reports that the run completed but the controller broke an invariant or a threshold:
// a finding about the controller, distinct from a failure of the run.
type ViolationError struct {
	Kind    string // ViolationInvariant or ViolationThreshold
	Details []string
}

func (e *ViolationError) Error() string {
	return fmt.Sprintf("%s violated: %s", e.Kind, strings.Join(e.Details, "; "))
}

// badInputError marks bad input or environment.
type badInputError struct{ err error }

func (e *badInputError) Error() string { return e.err.Error() }
func (e *badInputError) Unwrap() error { return e.err }

// BadInput wraps err as bad input or environment.
func BadInput(err error) error { return &badInputError{err} }

// IsBadInput reports whether err is bad input or a missing environment (exit code 2).
func IsBadInput(err error) bool {
	var b *badInputError
	return errors.As(err, &b) || errors.Is(err, env.ErrEnvironment)
}

// ControllerExitError is an external controller process that ended on its own.
type ControllerExitError struct {
	Replica int
	// Status is the process's end (e.g. "exit status 3", "signal: killed").
	Status string
	// Log is the path of the process's output.
	Log string
	// After is how long after its start it ended.
	After string
}

func (e *ControllerExitError) Error() string {
	return fmt.Sprintf("external controller replica %d exited on its own after %s (%s); see its log %s", e.Replica, e.After, e.Status, e.Log)
}
