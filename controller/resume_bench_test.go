package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/prometheus/client_golang/prometheus"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
)

// BenchmarkResumeFirstChange measures a restart's time to its first meaningful AWS mutation (the
// TTFMR of design.md) at two fleet sizes, with and without the resume fast path, in one run.
// Each fleet (100 and 1,000 bindings with matching checkpoints, as in BenchmarkRestartSync) has
// one more binding, on a real fakeaws target group. Per iteration, for each size and mode: record
// a watermark, give that binding a new endpoint while no controller runs, start a fresh manager
// and controller, and time from mgr.Start until the first Register/DeregisterTargets of its
// target group; then wait for its checkpoint and stop. Reported: first-ms per mode and size, and
// the ratios resume-1000/100 (a start-up independent of fleet size is ≈ 1; the goal is ≤ 2) and
// resume/normal-1000.
func BenchmarkResumeFirstChange(b *testing.B) {
	sizes := []int{100, 1000}
	type fleet struct {
		ns, arn string
		eps     []epRef
	}
	fleets := map[int]*fleet{}
	for i, n := range sizes {
		f := &fleet{ns: restartBenchFleet(b, n)}
		f.arn = createTargetGroup(b, fmt.Sprintf("resume-%d", n), elbtypes.TargetTypeEnumIp)
		f.eps = backend(b, f.ns, "changed", 60+i, 2)
		create(b, mkTGB(f.ns, "changed", "changed", f.arn, v1beta1.TargetTypeIP))
		fleets[n] = f
	}
	first := map[string]time.Duration{}
	round := 0
	for b.Loop() {
		for _, n := range sizes {
			f := fleets[n]
			for _, resume := range [][]bool{{true, false}, {false, true}}[round%2] {
				round++
				// A new IP for the second endpoint each time: every restart has a change to apply.
				f.eps[1].ip = fmt.Sprintf("10.0.%d.%d", 60+n/1000, 100+round%150)
				first[benchKey(resume, n)] += restartToFirstChange(b, f.ns, f.arn, f.eps, resume)
			}
		}
	}
	for k, d := range first {
		b.ReportMetric(float64(d.Milliseconds())/float64(b.N), k+"-first-ms")
	}
	b.ReportMetric(float64(first[benchKey(true, 1000)])/float64(first[benchKey(true, 100)]), "resume-1000/100")
	b.ReportMetric(float64(first[benchKey(false, 1000)])/float64(first[benchKey(false, 100)]), "normal-1000/100")
	b.ReportMetric(float64(first[benchKey(true, 1000)])/float64(first[benchKey(false, 1000)]), "resume/normal-1000")
}

func benchKey(resume bool, n int) string {
	return fmt.Sprintf("%s-%d", map[bool]string{true: "resume", false: "normal"}[resume], n)
}

// restartToFirstChange runs one restart of restartBenchFleet-like namespace ns (see
// BenchmarkResumeFirstChange) and returns the time from mgr.Start to the first mutation of arn.
func restartToFirstChange(b *testing.B, ns, arn string, eps []epRef, resume bool) time.Duration {
	b.StopTimer()
	ctx := context.Background()
	// The watermark a running instance would have left: the current resource version, now.
	rv, err := CurrentResourceVersion(ctx, k8s, ns)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeWatermark(ctx, k8s, ns, DefaultLeaderElectionID, Watermark{ResourceVersion: rv, RecordedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	s := &discoveryv1.EndpointSlice{}
	if err := k8s.Get(ctx, clientKey(ns, "changed-slice"), s); err != nil {
		b.Fatal(err)
	}
	s.Endpoints = endpointsOf(eps...)
	if err := k8s.Update(ctx, s); err != nil {
		b.Fatal(err)
	}

	opts := testOptions(CheckpointAnnotation)
	opts.Resume, opts.ResumeNamespace = resume, ns
	opts.Namespaces = []string{ns}
	opts.MetricsRegistry = prometheus.NewRegistry()
	mopts := ManagerOptions(opts, manager.Options{Scheme: scheme, Logger: logger})
	mopts.GracefulShutdownTimeout = ptr.To(5 * time.Second)
	mgr, err := ctrl.NewManager(cfg, mopts)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := New(mgr, opts); err != nil {
		b.Fatal(err)
	}
	since := aws_.Recorder().Len()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	b.StartTimer()

	start := time.Now()
	go func() { done <- mgr.Start(runCtx) }()
	var took time.Duration
	for deadline := start.Add(2 * time.Minute); took == 0; time.Sleep(time.Millisecond) {
		for _, c := range callsFor(since, arn) {
			if c.Operation == "RegisterTargets" || c.Operation == "DeregisterTargets" {
				took = c.Time.Sub(start)
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("no mutation of the changed binding's target group after 2m")
		}
	}
	b.StopTimer()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		tgb := &v1beta1.TargetGroupBinding{}
		if err := k8s.Get(ctx, clientKey(ns, "changed"), tgb); err == nil && checkpoint.IsSet(tgb.Annotations) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("no checkpoint after the change")
		}
	}
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	return took
}
