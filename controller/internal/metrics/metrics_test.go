package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestNewTwiceOnOneRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(reg)
	if err != nil {
		t.Fatalf("second New: %v", err)
	}
	a.Reconciles.WithLabelValues(ResultFull).Inc()
	b.Reconciles.WithLabelValues(ResultFull).Inc()
	if got := testutil.ToFloat64(a.Reconciles.WithLabelValues(ResultFull)); got != 2 {
		t.Fatalf("shared counter = %v, want 2", got)
	}
	if n, _ := testutil.GatherAndCount(reg, "tgb_reconciles_total", "tgb_deferred_queue_depth"); n != 2 {
		t.Fatalf("gathered %d series", n)
	}
}

func TestWorkQueueDepthIsReadAtEachScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := testutil.GatherAndCount(reg, "restartsim_controller_workqueue_depth"); n != 0 {
		t.Fatalf("a queue depth before any queue was set: %d series", n)
	}
	depth := 3
	m.SetWorkQueue("targetgroupbinding", func() int { return depth })
	want := func(v string) string {
		return "# HELP restartsim_controller_workqueue_depth Items ready in the work queue per controller, of this controller instance.\n" +
			"# TYPE restartsim_controller_workqueue_depth gauge\n" +
			"restartsim_controller_workqueue_depth{controller=\"targetgroupbinding\"} " + v + "\n"
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want("3")), "restartsim_controller_workqueue_depth"); err != nil {
		t.Fatal(err)
	}
	depth = 0
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want("0")), "restartsim_controller_workqueue_depth"); err != nil {
		t.Fatal(err)
	}
}
