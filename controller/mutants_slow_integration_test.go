package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/internal/testwait"
)

// The slowdown mutants change no outcome, only when it happens: each test asserts a lower bound
// that follows from the delay alone (machine load only makes it easier to meet) and logs the
// reference's time for comparison. Times are observed by polling, so later than the real events.

// firstTimeAtLeast polls value until it reaches n and returns when it saw it.
func firstTimeAtLeast(t *testing.T, timeout time.Duration, what string, n float64, value func() float64) time.Time {
	t.Helper()
	var at time.Time
	testwait.Until(t, timeout, what, func() bool {
		at = time.Now()
		return value() >= n
	})
	return at
}

// TestMutantSlowEarlyExit: n bindings whose checkpoints match are all early exits after a restart;
// with the mutant, the n waits of delay on `workers` workers take at least n×delay/workers.
func TestMutantSlowEarlyExit(t *testing.T) {
	const (
		n       = 12
		workers = 2
		delay   = 100 * time.Millisecond
	)
	ns := newNamespace(t)
	eps := backend(t, ns, "web", 96, 2)
	arns := make([]string, n)
	base := testOptions(CheckpointAnnotation)
	base.DriftCheckInterval = -1 // every matching reconcile is an early exit, no Describe calls
	base.MaxConcurrentReconciles = workers
	for i := range arns {
		arns[i] = createTargetGroup(t, fmt.Sprintf("%s-%d", ns, i), elbtypes.TargetTypeEnumIp)
		create(t, mkTGB(ns, fmt.Sprintf("web-%d", i), "web", arns[i], v1beta1.TargetTypeIP))
	}
	setup := startController(t, ns, base)
	for i := range arns {
		name := fmt.Sprintf("web-%d", i)
		testwait.Until(t, 10*time.Second, "checkpoint "+name, func() bool { return checkpoint.IsSet(getTGB(t, ns, name).Annotations) })
	}
	setup.stop()

	took := map[string]time.Duration{}
	forEachVariant(t, MutantSlowEarlyExit, func(t *testing.T, mutant string) {
		opts := withMutant(base, mutant)
		if mutant != "" {
			opts.MutantDelay = delay
		}
		since := aws_.Recorder().Len()
		start := time.Now()
		r := startController(t, ns, opts)
		early := func() float64 {
			return testutil.ToFloat64(r.c.metrics.Reconciles.WithLabelValues(metrics.ResultEarlyExit))
		}
		done := firstTimeAtLeast(t, 30*time.Second, fmt.Sprintf("%d early exits", n), n, early)
		took[mutant] = done.Sub(start)
		t.Logf("%d early exits %v after the start", n, took[mutant])
		if full := testutil.ToFloat64(r.c.metrics.Reconciles.WithLabelValues(metrics.ResultFull)); full != 0 {
			t.Fatalf("%v full reconciles, want only early exits", full)
		}
		for _, arn := range arns {
			if calls := callsFor(since, arn); len(calls) != 0 {
				t.Fatalf("early exits made AWS calls: %+v", calls)
			}
			if !sameSet(liveTargets(t, arn), targetKeys(eps)...) {
				t.Fatalf("targets of %s changed", arn)
			}
		}
		if mutant == "" {
			return
		}
		if min := n * delay / workers; took[mutant] < min {
			t.Fatalf("%d early exits took %v with a %v delay on %d workers, want at least %v", n, took[mutant], delay, workers, min)
		}
		if ref, ok := took[""]; ok {
			t.Logf("the mutant's early exits ended %v after the reference's (lower bound from the delay: %v)", took[mutant]-ref, n*delay/workers)
		}
	})
}

// TestMutantSlowStart: a restarted controller's first reconcile comes at least the mutant's delay
// after the start: on the normal path (with the default delay), and on the resume fast path,
// which reconciles a change made during the downtime before the caches sync.
func TestMutantSlowStart(t *testing.T) {
	reconciles := func(r *running) float64 {
		return testutil.ToFloat64(r.c.metrics.Reconciles.WithLabelValues(metrics.ResultFull)) +
			testutil.ToFloat64(r.c.metrics.Reconciles.WithLabelValues(metrics.ResultEarlyExit))
	}
	cases := []struct {
		name  string
		delay time.Duration // 0: the mutant's default
		// setup returns the options of the restarted controller, its binding's target group and
		// the targets it must end with, and what counts its reconciles.
		setup func(t *testing.T) (Options, string, []epRef, func(*running) float64)
	}{
		{name: "normal path", setup: func(t *testing.T) (Options, string, []epRef, func(*running) float64) {
			ns := newNamespace(t)
			arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
			eps := backend(t, ns, "web", 97, 2)
			create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
			opts := testOptions(CheckpointAnnotation)
			opts.Namespaces = []string{ns}
			return opts, arn, eps, reconciles
		}},
		{name: "resume fast path", delay: 1500 * time.Millisecond, setup: func(t *testing.T) (Options, string, []epRef, func(*running) float64) {
			ns, arn, eps, _ := stoppedAfterCheckpoint(t, 98)
			changed := append([]epRef{eps[0]}, epRef{pod: eps[1].pod, ip: "10.0.98.99", ready: true})
			setSliceEndpoints(t, ns, "web-slice", changed...)
			opts := resumeOptions(ns)
			opts.Namespaces = []string{ns}
			return opts, arn, changed, func(r *running) float64 { return fastPathReconciles(t, r) }
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachVariant(t, MutantSlowStart, func(t *testing.T, mutant string) {
				opts, arn, want, count := tc.setup(t)
				opts = withMutant(opts, mutant)
				delay := DefaultSlowStartDelay
				if mutant != "" && tc.delay != 0 {
					opts.MutantDelay, delay = tc.delay, tc.delay
				}
				start := time.Now()
				r := startController(t, opts.Namespaces[0], opts)
				synced := time.Now()
				first := firstTimeAtLeast(t, 30*time.Second, "the first reconcile", 1, func() float64 { return count(r) })
				t.Logf("first reconcile %v after the start, %v after the caches synced", first.Sub(start), first.Sub(synced))
				testwait.Until(t, 10*time.Second, "targets", func() bool { return sameSet(liveTargets(t, arn), targetKeys(want)...) })
				if mutant == "" {
					return
				}
				if got := first.Sub(start); got < delay {
					t.Fatalf("first reconcile %v after the start, want at least the delay %v", got, delay)
				}
			})
		})
	}
}

// TestMutantWaitUsesClock: the mutants' wait runs on the controller's clock and ends with ctx.
func TestMutantWaitUsesClock(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	c := &Controller{opts: Options{Mutant: MutantSlowEarlyExit, MutantDelay: time.Minute, Clock: clk}}
	done := make(chan error, 1)
	go func() { done <- c.slowEarlyExit(context.Background()) }()
	testwait.Until(t, 5*time.Second, "the wait's timer", clk.HasWaiters)
	clk.Step(time.Minute - time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("wait ended %v before its delay", err)
	case <-time.After(50 * time.Millisecond):
	}
	clk.Step(time.Millisecond)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- c.mutantWait(ctx) }()
	testwait.Until(t, 5*time.Second, "the wait's timer", clk.HasWaiters)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait returned %v", err)
	}

	c.opts.Mutant = MutantDeferDrift // no wait without the mutant
	if err := c.slowEarlyExit(ctx); err != nil {
		t.Fatal(err)
	}
}
