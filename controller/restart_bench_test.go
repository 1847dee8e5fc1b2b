package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/metrics"
)

// BenchmarkRestartSync measures a restart of the annotation strategy over a fleet of N bindings
// (3 pods, one Service and one EndpointSlice each; N = $RESTART_BENCH_N, default 1000) whose
// checkpoints all match, on the package's envtest API server. The fleet is created once per
// process. Each iteration restarts twice, with a fresh manager and controller each time: once
// with the startup optimisations off (Options.legacyStartup, "base") and once with them on
// ("opt"), in alternating order, so both see the same machine load. Per mode, from mgr.Start:
// sync-ms until the controller starts its workers (every watched informer synced and its
// handlers fed the initial list), first-ms until the first early exit, ns/binding until every
// binding exited early, and heap allocations from Start until then (allocs/binding, B/binding).
// opt/base-all and opt/base-sync are the ratios of the summed times: compare those, not
// absolute figures. Every reconcile must be an early exit with zero AWS calls (checked).
// RESTART_BENCH_CPUPROFILE=<file> writes a CPU profile of the timed parts, labelled
// mode=base|opt (go tool pprof -tagfocus mode=opt <file>).
func BenchmarkRestartSync(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("RESTART_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	ns := restartBenchFleet(b, n)
	b.Run(fmt.Sprintf("bindings=%d", n), func(b *testing.B) { benchRestart(b, ns, n) })
}

// restartTimes is one measured restart.
type restartTimes struct {
	sync, first, all time.Duration
	mallocs, bytes   uint64
}

func (r *restartTimes) add(o restartTimes) {
	r.sync += o.sync
	r.first += o.first
	r.all += o.all
	r.mallocs += o.mallocs
	r.bytes += o.bytes
}

func benchRestart(b *testing.B, ns string, n int) {
	if path := os.Getenv("RESTART_BENCH_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	var base, opt restartTimes
	i := 0
	for b.Loop() {
		for _, legacy := range [][]bool{{true, false}, {false, true}}[i%2] {
			r := restartOnce(b, ns, n, legacy)
			if legacy {
				base.add(r)
			} else {
				opt.add(r)
			}
		}
		i++
	}
	per := float64(b.N) * float64(n)
	for _, m := range []struct {
		name string
		r    restartTimes
	}{{"base", base}, {"opt", opt}} {
		b.ReportMetric(float64(m.r.all.Nanoseconds())/per, m.name+"-ns/binding")
		b.ReportMetric(float64(m.r.sync.Milliseconds())/float64(b.N), m.name+"-sync-ms")
		b.ReportMetric(float64(m.r.first.Milliseconds())/float64(b.N), m.name+"-first-ms")
		b.ReportMetric(float64(m.r.mallocs)/per, m.name+"-allocs/binding")
		b.ReportMetric(float64(m.r.bytes)/per, m.name+"-B/binding")
	}
	b.ReportMetric(float64(opt.all)/float64(base.all), "opt/base-all")
	b.ReportMetric(float64(opt.sync)/float64(base.sync), "opt/base-sync")
}

// restartOnce starts a fresh manager and controller on ns (construction and shutdown untimed)
// and waits until all n bindings exited early.
func restartOnce(b *testing.B, ns string, n int, legacy bool) restartTimes {
	b.StopTimer()
	opts := testOptions(CheckpointAnnotation)
	opts.legacyStartup = legacy
	opts.Namespaces = []string{ns}
	opts.MetricsRegistry = prometheus.NewRegistry()
	workers := make(chan time.Time, 1)
	mopts := ManagerOptions(opts, manager.Options{Scheme: scheme, Logger: workersStarted(workers)})
	mopts.GracefulShutdownTimeout = ptr.To(5 * time.Second)
	mgr, err := ctrl.NewManager(cfg, mopts)
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(mgr, opts)
	if err != nil {
		b.Fatal(err)
	}
	early := c.metrics.Reconciles.WithLabelValues(metrics.ResultEarlyExit)
	since := aws_.Recorder().Len()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	b.StartTimer()

	start := time.Now()
	mode := map[bool]string{true: "base", false: "opt"}[legacy]
	pprof.Do(ctx, pprof.Labels("mode", mode), func(ctx context.Context) {
		go func() { done <- mgr.Start(ctx) }()
	})
	var r restartTimes
	for deadline := start.Add(3 * time.Minute); ; time.Sleep(2 * time.Millisecond) {
		got := testutil.ToFloat64(early)
		if r.first == 0 && got >= 1 {
			r.first = time.Since(start)
		}
		if got >= float64(n) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%v of %d bindings exited early after 3m", got, n)
		}
	}
	r.all = time.Since(start)
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	r.sync = (<-workers).Sub(start)
	r.mallocs, r.bytes = m1.Mallocs-m0.Mallocs, m1.TotalAlloc-m0.TotalAlloc
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	for _, res := range []string{metrics.ResultFull, metrics.ResultError} {
		if v := testutil.ToFloat64(c.metrics.Reconciles.WithLabelValues(res)); v != 0 {
			b.Fatalf("%v %s reconciles: the fleet's checkpoints do not match", v, res)
		}
	}
	if calls := callsFor(since, ""); len(calls) != 0 {
		b.Fatalf("restart made %d AWS calls", len(calls))
	}
	b.StartTimer()
	return r
}

// workersStarted is a logger that sends the time of controller-runtime's "Starting workers"
// message: the controller's sources have all synced and fed their handlers the initial list.
func workersStarted(ch chan<- time.Time) logr.Logger {
	return funcr.New(func(_, args string) {
		if strings.Contains(args, `"Starting workers"`) {
			select {
			case ch <- time.Now():
			default:
			}
		}
	}, funcr.Options{})
}

var benchFleets struct {
	mu  sync.Mutex
	nss map[int]string
}

// restartBenchFleet creates, once per process and size, a namespace with n bindings whose
// checkpoint annotations match their endpoints, so a restart reconciles each with an early exit.
// The target group ARNs are never called: an early exit makes no AWS call.
func restartBenchFleet(b *testing.B, n int) string {
	benchFleets.mu.Lock()
	defer benchFleets.mu.Unlock()
	if ns, ok := benchFleets.nss[n]; ok {
		return ns
	}
	start := time.Now()
	ns := newNamespace(b)
	work := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range work {
				if err := createBenchBinding(ns, i); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	b.Logf("created %d bindings (%d objects) in %v", n, 6*n, time.Since(start).Round(time.Millisecond))
	if benchFleets.nss == nil {
		benchFleets.nss = map[int]string{}
	}
	benchFleets.nss[n] = ns
	return ns
}

// createBenchBinding creates binding i: Service, 3 pods, an EndpointSlice of ready endpoints, and
// the binding with the finalizer and the checkpoint of exactly those endpoints.
func createBenchBinding(ns string, i int) error {
	ctx := context.Background()
	svc := fmt.Sprintf("svc-%d", i)
	if err := k8s.Create(ctx, mkService(ns, svc, 0)); err != nil {
		return err
	}
	var eps []epRef
	var ids []string
	for k := range 3 {
		p := mkPod(ns, fmt.Sprintf("%s-%d", svc, k))
		if err := k8s.Create(ctx, p); err != nil {
			return err
		}
		j := 3*i + k
		ip := fmt.Sprintf("10.%d.%d.%d", 128+j/65536, j/256%256, j%256)
		eps = append(eps, epRef{pod: p.Name, ip: ip, ready: true})
		ids = append(ids, checkpoint.IPEndpointID(ip, 8080, p.CreationTimestamp.Time))
	}
	if err := k8s.Create(ctx, mkSlice(ns, svc+"-slice", svc, eps...)); err != nil {
		return err
	}
	tgb := mkTGB(ns, svc, svc, fmt.Sprintf("arn:aws:elasticloadbalancing:%s:000000000000:targetgroup/bench-%d/0", testRegion, i), v1beta1.TargetTypeIP)
	tgb.Finalizers = []string{FinalizerName}
	if err := k8s.Create(ctx, tgb); err != nil {
		return err
	}
	cp, err := checkpoint.Compute(ids, tgb.Spec) // the spec as stored, defaults included
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": checkpoint.Upstream{}.Save(cp, time.Now())}})
	if err != nil {
		return err
	}
	return k8s.Patch(ctx, tgb, client.RawPatch(types.MergePatchType, body))
}
