package controller

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/internal/testwait"
)

var compactValue = regexp.MustCompile(`^[A-Za-z0-9_-]{43}/[0-9]+$`)

// TestRestartSkipsUnchanged: after a restart, an unchanged binding makes zero AWS calls and a
// changed one reconciles fully.
func TestRestartSkipsUnchanged(t *testing.T) {
	for _, mode := range []CheckpointMode{CheckpointAnnotation, CheckpointCompact} {
		t.Run(string(mode), func(t *testing.T) {
			ns := newNamespace(t)
			arnA := createTargetGroup(t, ns+"-a", elbtypes.TargetTypeEnumIp)
			arnB := createTargetGroup(t, ns+"-b", elbtypes.TargetTypeEnumIp)
			epsA := backend(t, ns, "a", 20, 2)
			epsB := backend(t, ns, "b", 21, 2)
			create(t, mkTGB(ns, "a", "a", arnA, v1beta1.TargetTypeIP), mkTGB(ns, "b", "b", arnB, v1beta1.TargetTypeIP))
			first := startController(t, ns, testOptions(mode))
			for _, n := range []string{"a", "b"} {
				testwait.Until(t, 10*time.Second, "checkpoint "+n, func() bool { return checkpoint.IsSet(getTGB(t, ns, n).Annotations) })
			}
			ann := getTGB(t, ns, "a").Annotations
			if mode == CheckpointCompact {
				if _, ok := ann[checkpoint.AnnotationTimestamp]; ok || !compactValue.MatchString(ann[checkpoint.AnnotationCheckpoint]) {
					t.Fatalf("compact annotations %v", ann)
				}
			} else if _, ok := ann[checkpoint.AnnotationTimestamp]; !ok {
				t.Fatalf("annotation mode without timestamp: %v", ann)
			}
			first.stop()

			// While the controller is down, b's endpoints change.
			newB := append([]epRef{epsB[0]}, epRef{pod: epsB[1].pod, ip: "10.0.21.99", ready: true})
			setSliceEndpoints(t, ns, "b-slice", newB...)
			since := aws_.Recorder().Len()
			second := startController(t, ns, testOptions(mode))
			testwait.Until(t, 10*time.Second, "b re-registered", func() bool { return sameSet(liveTargets(t, arnB), targetKeys(newB)...) })
			testwait.Until(t, 10*time.Second, "b checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "b").Annotations) })
			second.waitReconciled(t, ns, []string{"a"}) // a's reconcile after the restart has finished
			if calls := callsFor(since, arnA); len(calls) != 0 {
				t.Fatalf("unchanged binding made %d AWS calls after restart: %+v", len(calls), calls)
			}
			if len(callsFor(since, arnB)) == 0 {
				t.Fatal("changed binding made no AWS calls")
			}
			if n := testutil.ToFloat64(second.c.metrics.Reconciles.WithLabelValues("early_exit")); n < 1 {
				t.Fatalf("early exits = %v", n)
			}
			if !sameSet(liveTargets(t, arnA), targetKeys(epsA)...) {
				t.Fatal("a's targets changed")
			}
		})
	}
}

// TestCrashBeforeCheckpointSave: a crash after RegisterTargets and before the save leaves the
// checkpoint reset, never a stale matching one; the next start reconciles fully.
func TestCrashBeforeCheckpointSave(t *testing.T) {
	for _, mode := range []CheckpointMode{CheckpointAnnotation, CheckpointCompact} {
		t.Run(string(mode), func(t *testing.T) {
			ns := newNamespace(t)
			arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
			eps := backend(t, ns, "web", 30, 2)
			create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
			first := startController(t, ns, testOptions(mode))
			testwait.Until(t, 10*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
			first.stop()

			crashed := make(chan struct{})
			errCrash := errors.New("crash")
			second := startController(t, ns, testOptions(mode), func(c *Controller, cancel context.CancelFunc) {
				c.afterRegister = func(ctx context.Context, _ *v1beta1.TargetGroupBinding) error {
					select {
					case <-crashed:
					default:
						close(crashed)
						cancel() // the process dies right after RegisterTargets
					}
					<-ctx.Done()
					return errCrash
				}
			})
			next := append(eps, epRef{pod: eps[0].pod, ip: "10.0.30.50", ready: true})
			setSliceEndpoints(t, ns, "web-slice", next...)
			select {
			case <-crashed:
			case <-time.After(10 * time.Second):
				t.Fatal("no RegisterTargets")
			}
			second.stop()
			if v := getTGB(t, ns, "web").Annotations[checkpoint.AnnotationCheckpoint]; v != "" {
				t.Fatalf("checkpoint after crash = %q, want reset", v)
			}
			since := aws_.Recorder().Len()
			startController(t, ns, testOptions(mode))
			testwait.Until(t, 10*time.Second, "checkpoint after recovery", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
			if len(callsFor(since, arn)) == 0 {
				t.Fatal("recovery made no AWS calls: it skipped")
			}
			if !sameSet(liveTargets(t, arn), targetKeys(next)...) {
				t.Fatalf("targets %v", liveTargets(t, arn))
			}
		})
	}
}

// TestDeferredFullReconcile: after a restart, an unchanged binding gets one forced full reconcile
// within delay+jitter.
func TestDeferredFullReconcile(t *testing.T) {
	const delay, jitter = 1 * time.Second, 1 * time.Second
	for _, mode := range []CheckpointMode{CheckpointAnnotation, CheckpointCompact} {
		t.Run(string(mode), func(t *testing.T) {
			ns := newNamespace(t)
			arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
			backend(t, ns, "web", 40, 2)
			create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
			opts := testOptions(mode)
			first := startController(t, ns, opts)
			testwait.Until(t, 10*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
			first.stop()

			opts.DeferralDelay, opts.DeferralJitter = delay, jitter
			since := aws_.Recorder().Len()
			start := time.Now()
			second := startController(t, ns, opts)
			testwait.Until(t, delay+jitter+3*time.Second, "deferred full reconcile", func() bool { return len(callsFor(since, arn)) > 0 })
			elapsed := time.Since(start)
			if elapsed < delay {
				t.Fatalf("full reconcile after %v, before the deferral delay %v", elapsed, delay)
			}
			testwait.Until(t, 5*time.Second, "checkpoint saved again", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
			if n := testutil.ToFloat64(second.c.metrics.Reconciles.WithLabelValues("early_exit")); n < 1 {
				t.Fatalf("early exits = %v", n)
			}
			if mode == CheckpointAnnotation {
				if n := testutil.ToFloat64(second.c.metrics.CheckpointResets.WithLabelValues(resetDeferred)); n != 1 {
					t.Fatalf("deferred resets = %v, want 1", n)
				}
			}
			// Exactly one: once the forced reconcile has finished, and any reconcile its own writes
			// cause has decided again, no second forced reconcile is scheduled. In annotation mode it
			// resets and saves the checkpoint, which wakes the binding once more (an early exit); in
			// compact mode the saved checkpoint still matches and nothing is written.
			testwait.Until(t, 10*time.Second, "the forced full reconcile", func() bool {
				return second.reconciles.count(ns, "web", metrics.ResultFull) > 0
			})
			if mode == CheckpointAnnotation {
				testwait.Until(t, 10*time.Second, "an early exit after the forced full reconcile", func() bool {
					rs := second.reconciles.of(ns, "web")
					return slices.Contains(rs[slices.Index(rs, metrics.ResultFull):], metrics.ResultEarlyExit)
				})
			}
			if d := testutil.ToFloat64(second.c.metrics.DeferredQueueDepth); d != 0 {
				t.Fatalf("deferred depth %v after the forced full reconcile: another one is scheduled", d)
			}
			if got := second.reconciles.count(ns, "web", metrics.ResultFull); got != 1 {
				t.Fatalf("%d full reconciles after the restart (%v), want the one forced", got, second.reconciles.of(ns, "web"))
			}
		})
	}
}
