package sim

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
