package controller

// Mutants inject one known bug each so that the simulation's checks can be shown to catch it.
const (
	// MutantNoResetBeforeMutation never resets the checkpoint before register/deregister/networking.
	MutantNoResetBeforeMutation = "no-reset-before-mutation"
	// MutantSaveBeforeRegister saves the new checkpoint before registering targets (a crash in
	// between leaves a stale matching checkpoint).
	MutantSaveBeforeRegister = "save-before-register"
	// MutantSkipCleanupReset does not reset the checkpoint when the backend Service is gone (#4343).
	MutantSkipCleanupReset = "skip-cleanup-reset"
	// MutantNoGateHoldBack drops not-ready pods held back only by the readiness gate.
	MutantNoGateHoldBack = "no-gate-holdback"
	// MutantEarlyExitIgnoresGates early-exits even while a gated pod's condition is not True (seed commit 2, #4737).
	MutantEarlyExitIgnoresGates = "early-exit-ignores-gates"
)

var knownMutants = map[string]bool{
	MutantNoResetBeforeMutation: true,
	MutantSaveBeforeRegister:    true,
	MutantSkipCleanupReset:      true,
	MutantNoGateHoldBack:        true,
	MutantEarlyExitIgnoresGates: true,
}

// KnownMutants lists the accepted Options.Mutant values.
func KnownMutants() []string {
	return []string{MutantNoResetBeforeMutation, MutantSaveBeforeRegister, MutantSkipCleanupReset,
		MutantNoGateHoldBack, MutantEarlyExitIgnoresGates}
}
