package results

// RestartWork is what the instance that took over after the first restart spent reconciling, from
// its own metrics: the reconciles' total duration (real seconds, as the controller times them) and
// their number, until the first meaningful mutation and until its work queue drained. Unlike the
// restart's latencies, these do not depend on where the changed objects sat in the queue: a cost
// added to every reconcile shows in them whatever the order.
//
// Counters are scraped every ScrapeIntervalSeconds (wall time) and never interpolated: a figure
// at an event is the last scrape at or before it, less the counter at the instance's start (zero
// for a new process; for a standby, its last scrape at or before the stop).
type RestartWork struct {
	// Source is where the counters come from: "controller-runtime" (an external process's
	// controller_runtime_reconcile_time_seconds and controller_runtime_reconcile_total) or
	// "reference" (the in-process reference controller's own registry, restartsim_controller_*).
	Source string `json:"source"`
	// Controllers are the controller labels counted (all of the instance's when the scenario names
	// none).
	Controllers []string `json:"controllers,omitempty"`
	// ScrapeIntervalSeconds is the wall time between two scrapes: the resolution of every figure.
	ScrapeIntervalSeconds float64 `json:"scrapeIntervalSeconds"`
	// ReconcileSecondsBeforeFirstMeaningful and ReconcilesBeforeFirstMeaningful: from the
	// instance's start until the first meaningful mutation (nil: no such mutation, or no scrape).
	ReconcileSecondsBeforeFirstMeaningful *float64 `json:"reconcileSecondsBeforeFirstMeaningful,omitempty"`
	ReconcilesBeforeFirstMeaningful       *int     `json:"reconcilesBeforeFirstMeaningful,omitempty"`
	// DrainedSeconds is the scenario second of the first scrape, after the instance reconciled
	// anything, at which its work queue was empty and no reconcile was running (nil: never seen,
	// or the controller does not expose its queue depth).
	DrainedSeconds *float64 `json:"drainedSeconds,omitempty"`
	// ReconcileSecondsUntilDrained and ReconcilesUntilDrained: from the instance's start until
	// DrainedSeconds.
	ReconcileSecondsUntilDrained *float64 `json:"reconcileSecondsUntilDrained,omitempty"`
	ReconcilesUntilDrained       *int     `json:"reconcilesUntilDrained,omitempty"`
	// EarlyExits counts the reconciles that ended in the checkpoint early exit until DrainedSeconds,
	// and EarlyExitSecondsPerBinding is their mean duration (restartsim_controller_early_exit_seconds;
	// the reference controller only). After a restart each unchanged binding early-exits once.
	EarlyExits                 *int     `json:"earlyExits,omitempty"`
	EarlyExitSecondsPerBinding *float64 `json:"earlyExitSecondsPerBinding,omitempty"`
}

// Source values of RestartWork.
const (
	WorkSourceControllerRuntime = "controller-runtime"
	WorkSourceReference         = "reference"
)

// addMetrics adds the work figures that were measured to m.
func (w *RestartWork) addMetrics(m map[string]float64) {
	if w == nil {
		return
	}
	f := func(name string, v *float64) {
		if v != nil {
			m[name] = *v
		}
	}
	n := func(name string, v *int) {
		if v != nil {
			m[name] = float64(*v)
		}
	}
	f(MetricReconcileSecondsBeforeFirst, w.ReconcileSecondsBeforeFirstMeaningful)
	n(MetricReconcilesBeforeFirst, w.ReconcilesBeforeFirstMeaningful)
	f(MetricReconcileSecondsUntilDrain, w.ReconcileSecondsUntilDrained)
	n(MetricReconcilesUntilDrain, w.ReconcilesUntilDrained)
	f(MetricEarlyExitSecondsPerBinding, w.EarlyExitSecondsPerBinding)
}
