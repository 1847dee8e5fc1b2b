package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/controller/internal/resume"
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

	// The slowdown mutants inject a known delay (Options.MutantDelay) into the restart path, so a
	// latency gate can be shown to catch a regression of a known size; they change no outcome.

	// MutantSlowEarlyExit makes every checkpoint early exit wait MutantDelay before returning, as
	// one extra API round trip per binding would.
	MutantSlowEarlyExit = "slow-early-exit"
	// MutantSlowStart holds the first reconcile back by MutantDelay, as an extra synchronous call
	// at start-up would (after the caches have synced; on the resume fast path, before it starts).
	MutantSlowStart = "slow-start"

	// MutantSecretBlindModel computes the load balancer reconcilers' model checkpoint with
	// lbmodel.CheckpointIgnoringSecrets, so an OIDC client Secret rotated while the controller is
	// down is skipped after the restart: the rule keeps the old client secret.
	MutantSecretBlindModel = "secret-blind-model"
)

var knownMutants = []string{
	MutantNoClearOnRegister, MutantSkipAfterCleanup, MutantStaleGateRead, MutantDeferDrift,
	MutantNoResetBeforeMutation, MutantSaveBeforeRegister, MutantNoGateHoldBack,
	MutantSlowEarlyExit, MutantSlowStart, MutantSecretBlindModel,
}

// Defaults of Options.MutantDelay per slowdown mutant.
const (
	DefaultSlowEarlyExitDelay = 5 * time.Millisecond
	DefaultSlowStartDelay     = time.Second
)

// DefaultMutantDelay is the MutantDelay that mutant m uses when none is set (0: m takes no delay).
func DefaultMutantDelay(m string) time.Duration {
	switch m {
	case MutantSlowEarlyExit:
		return DefaultSlowEarlyExitDelay
	case MutantSlowStart:
		return DefaultSlowStartDelay
	}
	return 0
}

// KnownMutants lists the accepted Options.Mutant values.
func KnownMutants() []string { return slices.Clone(knownMutants) }

// UpstreamBugMutants lists the mutants that re-introduce the known upstream bugs of the design notes.
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

// validateMutantDelay checks the MutantDelay option: only with a mutant that waits it, so a
// slowdown study cannot silently run without its slowdown.
func (o Options) validateMutantDelay() error {
	switch {
	case o.MutantDelay == 0:
		return nil
	case o.MutantDelay < 0:
		return fmt.Errorf("mutant delay: must be positive, got %s", o.MutantDelay)
	case o.Mutant == "":
		return errors.New("mutant delay: set without a mutant")
	case DefaultMutantDelay(o.Mutant) == 0:
		return fmt.Errorf("mutant delay: applies only to %s and %s, not %q", MutantSlowEarlyExit, MutantSlowStart, o.Mutant)
	}
	return nil
}

// mutant reports whether the controller runs with mutant m.
func (c *Controller) mutant(m string) bool { return c.opts.Mutant == m }

// mutantWait waits MutantDelay on the controller's clock, or until ctx is done.
func (c *Controller) mutantWait(ctx context.Context) error {
	t := c.opts.Clock.NewTimer(c.opts.MutantDelay)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// slowEarlyExit is MutantSlowEarlyExit's wait at the end of a checkpoint early exit.
func (c *Controller) slowEarlyExit(ctx context.Context) error {
	if !c.mutant(MutantSlowEarlyExit) {
		return nil
	}
	return c.mutantWait(ctx)
}

// setupSlowStart adds MutantSlowStart's start-up delay to mgr, after setupResume. With the resume
// fast path (which reconciles first and holds the informers back until it has replayed) the fast
// path starts late instead (withSlowStart); otherwise the manager's cache group stays not ready
// for MutantDelay after the caches have synced, so the controllers and every other runnable start
// that much later. Either way the delay adds to the start-up time instead of overlapping the
// initial list.
func (c *Controller) setupSlowStart(mgr manager.Manager) error {
	if !c.mutant(MutantSlowStart) {
		return nil
	}
	select {
	case <-c.resumeDone: // closed at once: no fast path
	default:
		return nil
	}
	return mgr.Add(&slowStart{c: c, cache: mgr.GetCache(), done: make(chan struct{})})
}

// withSlowStart is the resume fast path, started MutantDelay late under MutantSlowStart.
func (c *Controller) withSlowStart(fp *resume.FastPath) manager.Runnable {
	if !c.mutant(MutantSlowStart) {
		return fp
	}
	return &slowFastPath{FastPath: fp, c: c}
}

// slowFastPath is the resume fast path started MutantDelay late; it stays in the cache group
// (the embedded GetCache).
type slowFastPath struct {
	*resume.FastPath
	c *Controller
}

func (s *slowFastPath) Start(ctx context.Context) error {
	_ = s.c.mutantWait(ctx) // cancelled: the fast path still runs, to release what it holds
	return s.FastPath.Start(ctx)
}

// slowStart sits in the manager's cache group (GetCache), whose readiness the manager waits for
// before it starts the other runnables: it is ready MutantDelay after the caches have synced.
type slowStart struct {
	c     *Controller
	cache cache.Cache
	done  chan struct{}
}

func (s *slowStart) Start(ctx context.Context) error {
	if s.cache.WaitForCacheSync(ctx) && s.c.mutantWait(ctx) == nil {
		s.c.log.Info("mutant: start-up delayed", "mutant", MutantSlowStart, "delay", s.c.opts.MutantDelay)
		close(s.done)
	}
	<-ctx.Done()
	return nil
}

func (s *slowStart) GetCache() cache.Cache { return slowStartCache{Cache: s.cache, done: s.done} }

// slowStartCache reports synced once slowStart's delay has passed.
type slowStartCache struct {
	cache.Cache
	done <-chan struct{}
}

func (s slowStartCache) WaitForCacheSync(ctx context.Context) bool {
	select {
	case <-s.done:
		return true
	case <-ctx.Done():
		return false
	}
}
