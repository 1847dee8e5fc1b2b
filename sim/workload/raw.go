package workload

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/apiretry"
)

// RawResult is the outcome of RawCreateRate.
type RawResult struct {
	Objects int
	Elapsed time.Duration
}

// Rate is objects created per second.
func (r RawResult) Rate() float64 { return perSecond(r.Objects, r.Elapsed) }

// RawCreateRate measures the API server's plain create rate with the harness Create uses: n small
// ConfigMaps created by concurrency workers (default DefaultConcurrency) in a fresh namespace named
// <prefix>-raw (labelled with labels). The ConfigMaps and namespace are deleted afterwards; only the
// creates are timed. The goal is FleetPlan.Create's write rate ≥ 60 % of this rate.
func RawCreateRate(ctx context.Context, c client.Client, n, concurrency int, namespace string, labels map[string]string) (RawResult, error) {
	res, cleanup, err := RawCreate(ctx, c, n, concurrency, namespace, labels)
	cleanup()
	return res, err
}

// RawCreate is RawCreateRate without the deletion: the caller calls cleanup (always non-nil) when it
// has taken its own measurements of the create phase.
func RawCreate(ctx context.Context, c client.Client, n, concurrency int, namespace string, labels map[string]string) (res RawResult, cleanup func(), err error) {
	cleanup = func() {}
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace, Labels: withLabels(labels, nil)}}
	if err := apiretry.Create(ctx, c, ns); err != nil {
		return RawResult{}, cleanup, fmt.Errorf("raw create rate: namespace: %w", err)
	}
	cleanup = func() {
		_ = c.DeleteAllOf(context.WithoutCancel(ctx), &corev1.ConfigMap{}, client.InNamespace(namespace), client.MatchingLabels{rawLabel: "true"})
		_ = c.Delete(context.WithoutCancel(ctx), ns)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var done atomic.Int64
	start := time.Now()
	runPool(ctx, concurrency, n, func(i int) {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("raw-%06d", i), Namespace: namespace,
				Labels: withLabels(labels, map[string]string{rawLabel: "true"})},
			Data: map[string]string{"index": fmt.Sprint(i)},
		}
		if err := apiretry.Create(ctx, c, cm); err != nil {
			cancel(fmt.Errorf("raw create rate: %w", err))
			return
		}
		done.Add(1)
	})
	res = RawResult{Objects: int(done.Load()), Elapsed: time.Since(start)}
	return res, cleanup, context.Cause(ctx)
}

const rawLabel = "restartsim.io/raw"
