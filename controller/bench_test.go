package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/prometheus/client_golang/prometheus/testutil"
	discoveryv1 "k8s.io/api/discovery/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/internal/testwait"
)

// BenchmarkEarlyExitReconcile measures one Reconcile of an unchanged TargetGroupBinding whose
// checkpoint matches: the path every binding takes after a restart. It reads from the manager's
// cache (the package's envtest API server, started once by TestMain), makes zero AWS calls
// (checked) and no API writes. "neighbours" are other EndpointSlices in the same namespace (the
// fleet puts up to 500 Services in one namespace), so a lookup that scans the namespace shows up.
// x-cache-get is the cost in units of one cached Get of the binding, measured in the same run.
func BenchmarkEarlyExitReconcile(b *testing.B) {
	for _, tc := range []struct{ targets, neighbours int }{{3, 0}, {3, 500}, {30, 500}} {
		b.Run(fmt.Sprintf("targets=%d/neighbours=%d", tc.targets, tc.neighbours), func(b *testing.B) {
			benchEarlyExit(b, tc.targets, tc.neighbours)
		})
	}
}

func benchEarlyExit(b *testing.B, nTargets, neighbours int) {
	ctx := context.Background()
	ns := newNamespace(b)
	arn := createTargetGroup(b, "bench", elbtypes.TargetTypeEnumIp)
	backend(b, ns, "web", 40, nTargets)
	for i := range neighbours {
		create(b, mkSlice(ns, fmt.Sprintf("other-%d", i), fmt.Sprintf("other-%d", i),
			epRef{pod: fmt.Sprintf("other-%d-0", i), ip: fmt.Sprintf("10.1.%d.%d", i/250, i%250+1), ready: true}))
	}
	create(b, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
	r := startController(b, ns, testOptions(CheckpointAnnotation))
	defer r.stop()
	c := r.c
	early := c.metrics.Reconciles.WithLabelValues(metrics.ResultEarlyExit)
	testwait.Until(b, 30*time.Second, "checkpoint saved", func() bool { return checkpoint.IsSet(getTGB(b, ns, "web").Annotations) })
	testwait.Until(b, 30*time.Second, "first early exit", func() bool { return testutil.ToFloat64(early) >= 1 })
	testwait.Until(b, 30*time.Second, "cache holds every neighbour", func() bool {
		var l discoveryv1.EndpointSliceList
		return c.client.List(ctx, &l) == nil && len(l.Items) == neighbours+1
	})
	req := reconcile.Request{NamespacedName: clientKey(ns, "web")}

	// Baseline in the same run: one cached Get of the binding.
	// (testing.Benchmark cannot nest inside a benchmark: it would deadlock.)
	tgb := &v1beta1.TargetGroupBinding{}
	gets, start := 0, time.Now()
	for time.Since(start) < 100*time.Millisecond {
		if err := c.client.Get(ctx, req.NamespacedName, tgb); err != nil {
			b.Fatal(err)
		}
		gets++
	}
	base := float64(time.Since(start).Nanoseconds()) / float64(gets)

	since := aws_.Recorder().Len()
	before := testutil.ToFloat64(early)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Reconcile(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n := testutil.ToFloat64(early) - before; n < float64(b.N) {
		b.Fatalf("%v early exits for %d reconciles: not the early-exit path", n, b.N)
	}
	if calls := callsFor(since, arn); len(calls) != 0 {
		b.Fatalf("early exit made %d AWS calls: %+v", len(calls), calls)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-cache-get")
}
