package results

// Metrics returns the strategy's summary metrics plus those that live outside the summary
// (invariant_violations, orphaned_resources and leaked_instances, from the end-of-run invariant check).
func (s *Strategy) Metrics() map[string]float64 {
	m := s.Summary.Metrics()
	m[MetricInvariantViolations] = float64(len(s.Invariants.Violations))
	m[MetricOrphanedResources] = float64(s.Invariants.OrphanCount())
	m[MetricLeakedInstances] = float64(s.Invariants.LeakedInstances)
	return m
}
