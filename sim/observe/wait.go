package observe

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/internal/poll"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/kubesim"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WaitWatermark waits until the controller's resume watermark was recorded at or after since
// and covers the resource version rv.
func WaitWatermark(ctx context.Context, c client.Reader, namespace string, since time.Time, rv string, timeout time.Duration) error {
	var last controller.Watermark
	err := poll.Until(ctx, timeout, Paced(100*time.Millisecond), func() (bool, error) {
		w, ok, err := controller.ReadWatermark(ctx, c, namespace, controller.DefaultLeaderElectionID)
		if err != nil {
			return false, fmt.Errorf("warm-up: reading the resume watermark: %w", err)
		}
		if ok && !w.RecordedAt.Before(since) && covers(w.ResourceVersion, rv) {
			return true, nil
		}
		if ok {
			last = w
		}
		return false, nil
	})
	if !errors.Is(err, poll.ErrTimeout) {
		return err
	}
	recorded := "none recorded"
	if !last.RecordedAt.IsZero() {
		recorded = "last recorded at " + last.RecordedAt.Format(time.RFC3339Nano)
	}
	return fmt.Errorf("warm-up: the controller recorded no resume watermark (ConfigMap %s/%s) covering resource version %s within %s after the fleet converged at %s: %s",
		namespace, controller.WatermarkName(controller.DefaultLeaderElectionID), rv, timeout, since.UTC().Format(time.RFC3339Nano), recorded)
}

// covers reports whether the watermark w is at or after the resource version rv. Resource versions
// are opaque to clients in general; an etcd-backed API server's are its revisions, which the
// harness compares. When either is not a number it cannot tell, and the time decides alone.
func covers(w, rv string) bool {
	a, errA := strconv.ParseUint(w, 10, 64)
	b, errB := strconv.ParseUint(rv, 10, 64)
	return errA != nil || errB != nil || a >= b
}

// quietFor is how long the simulated kubelet and endpoint controller must stay idle for the fleet
// to count as settled.
const quietFor = 250 * time.Millisecond

// WaitQuiet waits until the simulated kubelet and endpoint controller have nothing queued and made
// no write for quietFor. A fleet that never settles is logged, not failed: the controller may keep
// it busy, and the timeline runs all the same.
func WaitQuiet(ctx context.Context, s *kubesim.Simulator, timeout time.Duration, log logr.Logger) {
	writes, since := s.Writes(), time.Now()
	err := poll.Until(ctx, timeout, poll.Every(25*time.Millisecond), func() (bool, error) {
		if w := s.Writes(); w != writes || s.Pending() > 0 {
			writes, since = w, time.Now()
			return false, nil
		}
		return time.Since(since) >= quietFor, nil
	})
	if errors.Is(err, poll.ErrTimeout) {
		log.Info("warm-up: the simulated kubelet and endpoint controller never went idle; starting the timeline anyway", "waited", timeout)
	}
}

// WarmUp waits until AWS holds every desired target, healthy, every gate is True and (unsettled not
// nil) no binding is unsettled.
func WarmUp(ctx context.Context, chk *Checker, timeout time.Duration, unsettled func() int) error {
	var last results.Invariants
	var lagging error // the last check's, while the simulator had not caught up
	left := 0
	err := poll.Until(ctx, timeout, Paced(200*time.Millisecond), func() (bool, error) {
		inv, err := chk.Check(ctx, true)
		lagging = nil
		if errors.Is(err, ErrUnsettled) {
			lagging = err
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if unsettled != nil {
			left = unsettled()
		}
		last = inv
		return inv.Passed && left == 0, nil
	})
	if !errors.Is(err, poll.ErrTimeout) {
		return err
	}
	if lagging != nil {
		// Not the controller's doing: the harness's own kubelet and endpoint controller never caught up.
		return fmt.Errorf("warm-up: the fleet did not converge within %s: %w", timeout, lagging)
	}
	// The controller under test never converged the fleet: a finding about the controller.
	return &results.ViolationError{Kind: results.ViolationInvariant, Details: []string{fmt.Sprintf(
		"warm-up: the fleet did not converge within %s: %s, %d without a checkpoint, first problems: %v",
		timeout, last.Describe(), left, last.Violations[:min(5, len(last.Violations))])}}
}
