package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// queueDepth is restartsim_controller_workqueue_depth{controller}: the items ready in this
// instance's work queue, read from the queue at each scrape. controller-runtime's workqueue_depth
// is per process and queue name, which in-process replicas share.
type queueDepth struct {
	desc  *prometheus.Desc
	queue atomic.Pointer[namedLen]
}

type namedLen struct {
	controller string
	len        func() int
}

func newQueueDepth() *queueDepth {
	return &queueDepth{desc: prometheus.NewDesc("restartsim_controller_workqueue_depth",
		"Items ready in the work queue per controller, of this controller instance.", []string{"controller"}, nil)}
}

func (q *queueDepth) Describe(ch chan<- *prometheus.Desc) { ch <- q.desc }

func (q *queueDepth) Collect(ch chan<- prometheus.Metric) {
	if n := q.queue.Load(); n != nil {
		ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(n.len()), n.controller)
	}
}

// SetWorkQueue makes restartsim_controller_workqueue_depth{controller} report length, the
// controller's work queue's Len. Instances registered on one registry share the metric; the last
// one set is reported.
func (m *Metrics) SetWorkQueue(controller string, length func() int) {
	m.queueDepth.queue.Store(&namedLen{controller: controller, len: length})
}
