package sut

import (
	"bytes"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// exposition is a registry's metrics in the text format a controller serves.
func exposition(t *testing.T, reg *prometheus.Registry) []byte {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// A controller-runtime process's metrics, two controllers: the work of the selected controller
// only, its histogram's sum, its reconcile_total over results, its queue and workers.
func TestWorkPointFromControllerRuntimeMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	hist := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "controller_runtime_reconcile_time_seconds"}, []string{"controller"})
	total := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total"}, []string{"controller", "result"})
	active := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "controller_runtime_active_workers"}, []string{"controller"})
	depth := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_depth"}, []string{"controller", "name"})
	other := prometheus.NewCounter(prometheus.CounterOpts{Name: "rest_client_requests_total"})
	reg.MustRegister(hist, total, active, depth, other)
	for _, v := range []float64{0.25, 0.5, 0.25} {
		hist.WithLabelValues("targetGroupBinding").Observe(v)
	}
	hist.WithLabelValues("ingress").Observe(7)
	total.WithLabelValues("targetGroupBinding", "success").Add(2)
	total.WithLabelValues("targetGroupBinding", "requeue").Add(1)
	total.WithLabelValues("ingress", "success").Add(1)
	active.WithLabelValues("targetGroupBinding").Set(1)
	active.WithLabelValues("ingress").Set(0)
	depth.WithLabelValues("targetGroupBinding", "targetGroupBinding").Set(4)
	depth.WithLabelValues("ingress", "ingress").Set(2)
	other.Add(99)
	body := exposition(t, reg)

	filtered := filterFamilies(body, workFamilies)
	if bytes.Contains(filtered, []byte("_bucket")) || bytes.Contains(filtered, []byte("rest_client")) {
		t.Fatalf("filter kept buckets or other families:\n%s", filtered)
	}
	mfs, err := parseMetrics(body, workFamilies)
	if err != nil {
		t.Fatal(err)
	}
	p := workPoint(mfs, controllerRuntimeWork, []string{"targetGroupBinding"})
	if p.ReconcileSeconds != 1 || p.Reconciles != 3 || *p.Active != 1 || *p.QueueDepth != 4 {
		t.Fatalf("targetGroupBinding: %+v (active %v, depth %v)", p, *p.Active, *p.QueueDepth)
	}
	all := workPoint(mfs, controllerRuntimeWork, nil)
	if all.ReconcileSeconds != 8 || all.Reconciles != 4 || *all.QueueDepth != 6 {
		t.Fatalf("all controllers: %+v", all)
	}
	none := workPoint(mfs, controllerRuntimeWork, []string{"absent"})
	if none.Reconciles != 0 || *none.QueueDepth != 0 {
		t.Fatalf("absent controller: %+v", none)
	}
	if q := workPoint(nil, controllerRuntimeWork, nil); q.QueueDepth != nil || q.Active != nil {
		t.Fatalf("no metrics: depth and workers must be unknown, got %+v", q)
	}
}
