package results

import (
	"errors"
	"fmt"
	"strings"
)

// Violation kinds.
const (
	ViolationInvariant = "invariant"
	ViolationThreshold = "threshold"
	ViolationGate      = "gate"
	// ViolationUnapplied: changes AWS never showed by the run's end, which the scenario did not
	// expect (results.MetricUnappliedChanges).
	ViolationUnapplied = "unapplied"
)

// ViolationError reports that a run or a gate completed and found the controller at fault: an
// invariant or a threshold broken, a change never applied, or a gate check failed. It is a
// finding about the controller, distinct from bad input or a failure of the tool.
type ViolationError struct {
	Kind    string // ViolationInvariant, ViolationUnapplied, ViolationThreshold or ViolationGate
	Details []string
	// Summary, when set, replaces the default "<kind> violated" lead of the message.
	Summary string
}

func (e *ViolationError) Error() string {
	lead := e.Summary
	if lead == "" {
		lead = e.Kind + " violated"
	}
	return fmt.Sprintf("%s: %s", lead, strings.Join(e.Details, "; "))
}

// IsViolation reports whether err is or wraps a *ViolationError.
func IsViolation(err error) bool {
	var v *ViolationError
	return errors.As(err, &v)
}
