package metrics

import (
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
