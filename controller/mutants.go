package controller

import (
	"fmt"
	"slices"
)

// Mutants inject one known bug each so that the simulation's checks can be shown to catch it. They
// are test-only: Options.Validate refuses a mutant unless the binary is built with the `mutants`
// build tag or Options.AllowMutants is set (`restartsim controller --allow-mutants`).
//
// The first four are the known upstream bugs of the design notes; each has an envtest in
// mutants_integration_test.go showing the reference behaves and the mutant does not.
const (
	// MutantNoClearOnRegister (seed commit 2): register and deregister neither clear the checkpoint
	// nor keep it cleared while a gated target is not healthy yet; the new checkpoint is saved right
	// after RegisterTargets and the reconcile ends as if done, so after a container restart with the
	// same pod object nothing runs the reconcile again and the readiness gate never re-flips to True.
	MutantNoClearOnRegister = "no-clear-on-register"
	// MutantSkipAfterCleanup (#4343): the checkpoint is not reset when the backend Service is gone and
	// cleanup ran, so when the Service returns with unchanged endpoints the reconcile is skipped and
	// the targets are not registered again.
	MutantSkipAfterCleanup = "skip-after-cleanup"
	// MutantStaleGateRead (#4737): the checkpoint early exit ignores gate conditions that are present
	// and not True (as a stale cache read of the gate would), so the gate stays stuck.
	MutantStaleGateRead = "stale-gate-read"
	// MutantDeferDrift (#4889): no drift check while the checkpoint matches; an out-of-band security
	// group revoke or target removal waits for the deferred full reconcile (30–45 min by default).
	MutantDeferDrift = "defer-drift"

	// MutantNoResetBeforeMutation never resets the checkpoint before register/deregister/networking.
	MutantNoResetBeforeMutation = "no-reset-before-mutation"
	// MutantSaveBeforeRegister saves the new checkpoint before registering targets (a crash in
	// between leaves a stale matching checkpoint).
	MutantSaveBeforeRegister = "save-before-register"
	// MutantNoGateHoldBack drops not-ready pods held back only by the readiness gate.
	MutantNoGateHoldBack = "no-gate-holdback"
)

var knownMutants = []string{
	MutantNoClearOnRegister, MutantSkipAfterCleanup, MutantStaleGateRead, MutantDeferDrift,
	MutantNoResetBeforeMutation, MutantSaveBeforeRegister, MutantNoGateHoldBack,
}

// KnownMutants lists the accepted Options.Mutant values.
func KnownMutants() []string { return slices.Clone(knownMutants) }

// UpstreamBugMutants lists the mutants that re-introduce the known upstream bugs (issue 8's four).
func UpstreamBugMutants() []string {
	return []string{MutantNoClearOnRegister, MutantSkipAfterCleanup, MutantStaleGateRead, MutantDeferDrift}
}

// MutantsBuildTag reports whether the binary was built with the `mutants` build tag, which allows
// mutants without Options.AllowMutants.
func MutantsBuildTag() bool { return mutantsBuildTag }

// validateMutant checks the Mutant option.
func (o Options) validateMutant() error {
	if o.Mutant == "" {
		return nil
	}
	if !slices.Contains(knownMutants, o.Mutant) {
		return fmt.Errorf("mutant: unknown %q (known: %v)", o.Mutant, knownMutants)
	}
	if !o.AllowMutants && !mutantsBuildTag {
		return fmt.Errorf("mutant: %q refused: mutants inject known bugs for testing only; build with -tags mutants or set AllowMutants (--allow-mutants)", o.Mutant)
	}
	return nil
}

// mutant reports whether the controller runs with mutant m.
func (c *Controller) mutant(m string) bool { return c.opts.Mutant == m }
