package controller

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Results of a load balancer reconcile (the result label of lb_model_reconciles_total).
const (
	lbResultSkipped  = "skipped"
	lbResultDeployed = "deployed"
	lbResultDeleted  = "deleted"
	lbResultError    = "error"
)

// lbMetrics are the lb_model_* metrics of the Ingress and Service reconcilers.
type lbMetrics struct {
	// reconciles is lb_model_reconciles_total{kind,result}.
	reconciles *prometheus.CounterVec
	// skips is lb_model_checkpoint_skips_total{kind}: reconciles that ended on a matching model
	// checkpoint without an AWS call.
	skips *prometheus.CounterVec
}

func newLBMetrics(reg prometheus.Registerer) (*lbMetrics, error) {
	m := &lbMetrics{
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
	m.reconciles = registerLBCollector(reg, m.reconciles, &err)
	m.skips = registerLBCollector(reg, m.skips, &err)
	return m, err
}

// registerLBCollector registers c on reg, or returns the collector already registered under its
// name, so that two instances sharing a registry share the counters instead of failing.
func registerLBCollector(reg prometheus.Registerer, c *prometheus.CounterVec, errp *error) *prometheus.CounterVec {
	err := reg.Register(c)
	if err == nil {
		return c
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
			return existing
		}
	}
	if *errp == nil {
		*errp = err
	}
	return c
}
