package lb

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/restartsim/restartsim/controller/internal/metrics"
)

// Results of a load balancer reconcile (the result label of lb_model_reconciles_total).
const (
	resultSkipped  = "skipped"
	resultDeployed = "deployed"
	resultDeleted  = "deleted"
	resultError    = "error"
)

// reconcileMetrics are the lb_model_* metrics of the Ingress and Service reconcilers.
type reconcileMetrics struct {
	// reconciles is lb_model_reconciles_total{kind,result}.
	reconciles *prometheus.CounterVec
	// skips is lb_model_checkpoint_skips_total{kind}: reconciles that ended on a matching model
	// checkpoint without an AWS call.
	skips *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*reconcileMetrics, error) {
	m := &reconcileMetrics{
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lb_model_reconciles_total",
			Help: "Ingress group and Service load balancer reconciles by kind (ingress, service) and result (skipped, deployed, deleted, error).",
		}, []string{"kind", "result"}),
		skips: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "lb_model_checkpoint_skips_total",
			Help: "Load balancer reconciles skipped because every object's stored model checkpoint matched, by kind.",
		}, []string{"kind"}),
	}
	var err error
	m.reconciles = metrics.Register(reg, m.reconciles, &err)
	m.skips = metrics.Register(reg, m.skips, &err)
	return m, err
}
