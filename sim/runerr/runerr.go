// Package runerr is how a simulation run ends when it measured nothing: bad input or a missing
// environment, or a controller process that exited on its own. A run that completed and found the
// controller at fault ends with a *results.ViolationError.
package runerr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/restartsim/restartsim/sim/env"
)

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

// ControllerExitError is an external controller process (or an in-process manager) that ended on its own.
type ControllerExitError struct {
	Replica int
	// Status is the process's end (e.g. "exit status 3", "signal: killed").
	Status string
	// Log is the path of the process's output.
	Log string
	// After is how long after its start it ended.
	After string
	// What is the instance's kind in the message. Default "external controller".
	What string
	// Refused names the calls AWS refused the process (by service, operation, error code and
	// message, with their counts), most frequent first: why a controller that gives up when AWS
	// refuses its credentials exited.
	Refused []string
	// LastError is the last line of its log that reports an error ("" if none does).
	LastError string
}

func (e *ControllerExitError) Error() string {
	what := e.What
	if what == "" {
		what = "external controller"
	}
	msg := fmt.Sprintf("%s replica %d exited on its own after %s (%s)", what, e.Replica, e.After, e.Status)
	if len(e.Refused) > 0 {
		msg += "; AWS refused its calls: " + strings.Join(e.Refused, "; ")
	}
	if e.LastError != "" {
		msg += fmt.Sprintf("; its log's last error: %q", e.LastError)
	}
	return msg + "; see its log " + e.Log
}
