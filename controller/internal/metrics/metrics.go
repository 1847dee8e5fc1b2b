// Package metrics holds the controller's Prometheus metrics. Each controller instance registers
// its own set on the registerer it is given; registering twice on one registerer reuses the
// collectors already there instead of panicking.
package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Reconcile results.
const (
	ResultFull      = "full"
	ResultEarlyExit = "early_exit"
	ResultError     = "error"
)

// Drift check results.
const (
	DriftClean = "clean"
	DriftFound = "drift"
	DriftError = "error"
)

// AWS call outcomes.
const (
	OutcomeSuccess   = "success"
	OutcomeThrottled = "throttled"
	OutcomeError     = "error"
)

// Metrics are the tgb_* metrics.
type Metrics struct {
	// Reconciles is tgb_reconciles_total{result}.
	Reconciles *prometheus.CounterVec
	// ResumeReconciles is tgb_resume_reconciles_total{result}: reconciles of the resume fast path.
	ResumeReconciles *prometheus.CounterVec
	// CheckpointResets is tgb_checkpoint_resets_total{reason}.
	CheckpointResets *prometheus.CounterVec
	// DeferredQueueDepth is tgb_deferred_queue_depth.
	DeferredQueueDepth prometheus.Gauge
	// DriftChecks is tgb_drift_checks_total{result}.
	DriftChecks *prometheus.CounterVec
	// AWSRequests is tgb_aws_requests_total{service,operation,outcome}, one per HTTP attempt.
	AWSRequests *prometheus.CounterVec
	// AWSThrottleWait is tgb_aws_throttle_wait_seconds{service,operation}.
	AWSThrottleWait *prometheus.HistogramVec

	// This instance's own copies of controller-runtime's reconcile metrics, which are per process
	// and shared by replicas in one process: restartsim_controller_reconcile_time_seconds{controller}
	// (every reconcile, as controller_runtime_reconcile_time_seconds), ..._active_workers{controller}
	// and ..._workqueue_depth{controller} (items ready in the work queue).
	ReconcileTime *prometheus.HistogramVec
	ActiveWorkers *prometheus.GaugeVec
	// EarlyExit is restartsim_controller_early_exit_seconds: the duration of the reconciles that
	// ended in the checkpoint early exit.
	EarlyExit prometheus.Histogram
	// queueDepth is restartsim_controller_workqueue_depth{controller} (see SetWorkQueue).
	queueDepth *queueDepth
}

// reconcileBuckets are controller-runtime's buckets for reconcile time.
var reconcileBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7,
	0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60}

// New creates the metrics and registers them on reg (nil: not registered).
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tgb_reconciles_total", Help: "TargetGroupBinding reconciles by result (full, early_exit, error).",
		}, []string{"result"}),
		ResumeReconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tgb_resume_reconciles_total", Help: "Reconciles of the resume fast path before the caches synced, by result (full, early_exit, error); deregistering a deleted binding counts as full.",
		}, []string{"result"}),
		CheckpointResets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tgb_checkpoint_resets_total", Help: "Checkpoint resets by reason.",
		}, []string{"reason"}),
		DeferredQueueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tgb_deferred_queue_depth", Help: "TargetGroupBindings waiting for their deferred full reconcile.",
		}),
		DriftChecks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tgb_drift_checks_total", Help: "Drift checks of bindings whose checkpoint matched, by result (clean, drift, error).",
		}, []string{"result"}),
		AWSRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tgb_aws_requests_total", Help: "AWS API requests (HTTP attempts) by service, operation and outcome.",
		}, []string{"service", "operation", "outcome"}),
		AWSThrottleWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tgb_aws_throttle_wait_seconds",
			Help:    "Time AWS calls waited in the client-side throttle.",
			Buckets: []float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"service", "operation"}),
		ReconcileTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "restartsim_controller_reconcile_time_seconds",
			Help:    "Length of time per reconciliation per controller, of this controller instance.",
			Buckets: reconcileBuckets,
		}, []string{"controller"}),
		ActiveWorkers: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "restartsim_controller_active_workers", Help: "Reconciles running now per controller, of this controller instance.",
		}, []string{"controller"}),
		EarlyExit: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "restartsim_controller_early_exit_seconds",
			Help:    "Length of the TargetGroupBinding reconciles that ended in the checkpoint early exit.",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
		}),
		queueDepth: newQueueDepth(),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	m.Reconciles = Register(reg, m.Reconciles, &err)
	m.ResumeReconciles = Register(reg, m.ResumeReconciles, &err)
	m.CheckpointResets = Register(reg, m.CheckpointResets, &err)
	m.DeferredQueueDepth = Register(reg, m.DeferredQueueDepth, &err)
	m.DriftChecks = Register(reg, m.DriftChecks, &err)
	m.AWSRequests = Register(reg, m.AWSRequests, &err)
	m.AWSThrottleWait = Register(reg, m.AWSThrottleWait, &err)
	m.ReconcileTime = Register(reg, m.ReconcileTime, &err)
	m.ActiveWorkers = Register(reg, m.ActiveWorkers, &err)
	m.EarlyExit = Register(reg, m.EarlyExit, &err)
	m.queueDepth = Register(reg, m.queueDepth, &err)
	return m, err
}

// Register registers c on reg, or returns the collector already registered under its name, so that
// two instances sharing a registry share it instead of failing; the first other error goes to *errp.
func Register[C prometheus.Collector](reg prometheus.Registerer, c C, errp *error) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		if *errp == nil {
			*errp = err
		}
	}
	return c
}
