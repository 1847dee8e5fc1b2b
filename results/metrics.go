package results

import "sort"

// Metric names understood by thresholds and the gate. One place defines them so the scenario
// validator, the simulation and the gate agree.
const (
	MetricTTFMR                          = "ttfmr_seconds"
	MetricBlindTimeP50                   = "blind_time_p50_seconds"
	MetricBlindTimeP95                   = "blind_time_p95_seconds"
	MetricBlindTimeMax                   = "blind_time_max_seconds"
	MetricChangeLatencyP50               = "change_latency_p50_seconds"
	MetricChangeLatencyP95               = "change_latency_p95_seconds"
	MetricChangeLatencyP99               = "change_latency_p99_seconds"
	MetricChangeLatencyMax               = "change_latency_max_seconds"
	MetricSteadyState                    = "steady_state_seconds"
	MetricAWSCallsBeforeFirstMeaningful  = "aws_calls_before_first_meaningful"
	MetricThrottledBeforeFirstMeaningful = "throttled_before_first_meaningful"
	MetricAWSCalls                       = "aws_calls_total"
	MetricThrottled                      = "throttled_total"
	MetricK8sWrites                      = "k8s_writes_total"
	MetricCheckpointPatches              = "checkpoint_patches_total"
	MetricReadinessGateFlipP95           = "readiness_gate_flip_p95_seconds"
	MetricDriftRepairMax                 = "drift_repair_max_seconds"
	MetricInvariantViolations            = "invariant_violations"
	MetricControllerCPUBeforeFirst       = "controller_cpu_seconds_before_first_meaningful"
	MetricAPIRequestsBeforeFirst         = "api_requests_before_first_meaningful"
	MetricCacheSync                      = "cache_sync_seconds"
	MetricListRequests                   = "k8s_list_requests_total"
	MetricWatchRequests                  = "k8s_watch_requests_total"
	MetricLeaseWrites                    = "lease_writes_total"
	MetricStandbyRSS                     = "standby_rss_bytes"
	// Reconcile work of the first restart's replacement (see RestartWork).
	MetricReconcileSecondsBeforeFirst = "reconcile_seconds_before_first_meaningful"
	MetricReconcilesBeforeFirst       = "reconciles_before_first_meaningful"
	MetricReconcileSecondsUntilDrain  = "reconcile_seconds_until_drained"
	MetricReconcilesUntilDrain        = "reconciles_until_drained"
	MetricEarlyExitSecondsPerBinding  = "early_exit_seconds_per_binding"
	// Memory of the instance that took over after the first restart (see RestartMemory).
	MetricRestartPeakRSS  = "restart_peak_rss_bytes"
	MetricRestartPeakHeap = "restart_peak_heap_bytes"
)

// Metrics returns every metric the summary has a value for. Metrics of events that never
// happened (nil pointers, empty quantiles) are absent, so a gate can tell "missing" from zero.
// A percentile reached by a change never applied is a lower bound (LowerBounds names them).
func (s *Summary) Metrics() map[string]float64 {
	m := map[string]float64{
		MetricAWSCallsBeforeFirstMeaningful:  float64(sum(s.AWSCallsBeforeFirstMeaningful)),
		MetricThrottledBeforeFirstMeaningful: float64(s.ThrottledBeforeFirstMeaningful),
		MetricAWSCalls:                       float64(sum(s.AWSCalls)),
		MetricThrottled:                      float64(s.Throttled),
		MetricK8sWrites:                      float64(s.K8sWrites.Total()),
		MetricCheckpointPatches:              float64(s.K8sWrites.CheckpointPatches),
		MetricUnappliedChanges:               float64(s.UnappliedChanges),
	}
	if s.TTFMRSeconds != nil {
		m[MetricTTFMR] = *s.TTFMRSeconds
	}
	if s.SteadyStateSeconds != nil {
		m[MetricSteadyState] = *s.SteadyStateSeconds
	}
	if q := s.BlindTime; q.Count > 0 {
		m[MetricBlindTimeP50], m[MetricBlindTimeP95], m[MetricBlindTimeMax] = q.P50, q.P95, q.Max
	}
	if q := s.ChangeLatency; q.Count > 0 {
		m[MetricChangeLatencyP50], m[MetricChangeLatencyP95] = q.P50, q.P95
		m[MetricChangeLatencyP99], m[MetricChangeLatencyMax] = q.P99, q.Max
	}
	if s.ReadinessGateFlip.Count > 0 {
		m[MetricReadinessGateFlipP95] = s.ReadinessGateFlip.P95
	}
	if s.DriftRepair.Count > 0 {
		m[MetricDriftRepairMax] = s.DriftRepair.Max
	}
	if s.ControllerCPUSecondsBeforeFirstMeaningful != nil {
		m[MetricControllerCPUBeforeFirst] = *s.ControllerCPUSecondsBeforeFirstMeaningful
	}
	if s.APIRequestsBeforeFirstMeaningful != nil {
		m[MetricAPIRequestsBeforeFirst] = float64(*s.APIRequestsBeforeFirstMeaningful)
	}
	if s.CacheSyncSeconds != nil {
		m[MetricCacheSync] = *s.CacheSyncSeconds
	}
	if l := s.APILoad; l != nil {
		m[MetricListRequests], m[MetricWatchRequests], m[MetricLeaseWrites] = float64(l.Lists), float64(l.Watches), float64(l.LeaseWrites)
	}
	if s.StandbyRSSBytes != nil {
		m[MetricStandbyRSS] = float64(*s.StandbyRSSBytes)
	}
	s.Work.addMetrics(m)
	s.Lease.addMetrics(m)
	s.Memory.addMetrics(m)
	return m
}

// MetricNames lists every known metric name, sorted, for validation messages.
func MetricNames() []string {
	names := []string{
		MetricTTFMR, MetricBlindTimeP50, MetricBlindTimeP95, MetricBlindTimeMax, MetricChangeLatencyP50, MetricChangeLatencyP95, MetricChangeLatencyP99,
		MetricChangeLatencyMax, MetricSteadyState, MetricAWSCallsBeforeFirstMeaningful,
		MetricThrottledBeforeFirstMeaningful, MetricAWSCalls, MetricThrottled, MetricK8sWrites,
		MetricCheckpointPatches, MetricReadinessGateFlipP95, MetricDriftRepairMax, MetricInvariantViolations,
		MetricControllerCPUBeforeFirst, MetricAPIRequestsBeforeFirst, MetricCacheSync, MetricListRequests, MetricWatchRequests,
		MetricLeaseWrites, MetricStandbyRSS, MetricReconcileSecondsBeforeFirst, MetricReconcilesBeforeFirst,
		MetricReconcileSecondsUntilDrain, MetricReconcilesUntilDrain, MetricEarlyExitSecondsPerBinding,
		MetricRestartPeakRSS, MetricRestartPeakHeap, MetricUnappliedChanges, MetricOrphanedResources,
		MetricLeakedInstances, MetricStartupBeforeLease, MetricLeaseWait, MetricTTFMRAfterLease, MetricBlindAfterLeaseP50,
	}
	sort.Strings(names)
	return names
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
