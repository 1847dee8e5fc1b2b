package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/sim/objects"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
)

// warmArm is the arm whose controller runs until the first restart: the converging one, else this.
func (r *strategyRun) warmArm() arm {
	if r.conv != nil {
		return *r.conv
	}
	return arm{st: r.strat, ext: r.ext}
}

// warmUp waits until the controller has converged the fleet and settled, so the measured phase
// starts from a steady state.
func (r *strategyRun) warmUp(ctx context.Context) error {
	r.log.Info("warming up until AWS holds every target and every object is ready", "profile", r.sc.AWS.WarmupProfile)
	warm := r.warmArm()
	var unsettled func() int // bindings the controller still has to checkpoint
	if warm.ext == nil && warm.st.InProcess == nil && warm.st.Checkpoint != scenario.CheckpointNone {
		unsettled = r.watch.WithoutCheckpoint
	}
	timeout := sut.WarmupTimeout(r.spec.TGBs, sut.RegistrationRate(r.sc, warm.st, warm.ext), r.sc.Clock()) + objectsWarmup(r.objectCount())
	warming := startConvergence(r.o.Progress, "warming up: the controller converges the fleet", r.checker)
	defer warming.End()
	if err := r.createLaterObjects(r.runCtx, timeout); err != nil {
		return r.startFailure(err)
	}
	if err := observe.WarmUp(r.runCtx, r.checker, timeout, unsettled); err != nil {
		return r.startFailure(err)
	}
	if err := r.ctrls.AwaitSettled(r.runCtx, timeout); err != nil {
		return r.startFailure(err)
	}
	// Readiness gates turn True last; the simulated kubelet then marks their pods Ready and the
	// endpoint controller rewrites their slices. The measured phase starts once that has settled.
	observe.WaitQuiet(r.runCtx, r.simulator, timeout, r.log)
	warming.End()
	if err := context.Cause(r.runCtx); err != nil && ctx.Err() == nil {
		return r.startFailure(err)
	}
	if !resumes(warm) {
		return nil
	}
	// A crash right away would leave the new instance a watermark from before the warm-up's
	// last reconciles, and its fast path would redo them: wait for one that covers them.
	rv, err := controller.CurrentResourceVersion(ctx, r.client, r.leaseNS)
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return observe.WaitWatermark(ctx, r.client, r.leaseNS, time.Now(), rv, timeout)
}

// createLaterObjects creates the groups that come after others, wave by wave, once the controller
// has made those ready.
func (r *strategyRun) createLaterObjects(ctx context.Context, timeout time.Duration) error {
	if r.objects == nil {
		return nil
	}
	f := r.objects.Fleet
	for _, wave := range f.Order()[1:] {
		for _, g := range wave {
			if err := r.objectsWatch.WaitReady(ctx, f.After(g), timeout); err != nil {
				return fmt.Errorf("warm-up: %w", err)
			}
			if err := f.CreateGroup(ctx, r.client, r.objects.Env, g, objects.CreateOptions{Concurrency: r.sc.Fleet.Concurrency}); err != nil {
				return fmt.Errorf("creating object group %s: %w", g, err)
			}
		}
	}
	return nil
}

// objectCount is the number of objects of the run's groups.
func (r *strategyRun) objectCount() int {
	if r.objects == nil {
		return 0
	}
	n := 0
	for _, g := range r.objects.Fleet.Groups() {
		n += r.objects.Fleet.Count(g)
	}
	return n
}

// objectsWarmup is the warm-up's allowance for n objects: a controller that creates one AWS
// resource at a time (one worker per kind, as ACK's) with a few calls and status writes each.
func objectsWarmup(n int) time.Duration { return time.Duration(n) * 250 * time.Millisecond }

// startFailure is err, or the refusal that stopped the warm-up: the controller's configuration, exit code 2.
func (r *strategyRun) startFailure(err error) error {
	if re := refusedCause(r.runCtx); re != nil {
		return runerr.BadInput(fmt.Errorf("warm-up: %w", re))
	}
	return sut.StartFailure(r.runCtx, err)
}
