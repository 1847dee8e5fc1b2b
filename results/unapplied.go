package results

import "fmt"

// MetricUnappliedChanges counts the changes still not applied when the run ended. Any is a finding
// about the controller (simulate exits 3) unless the scenario declares how many it expects with a
// threshold on this metric; the gate fails a candidate with more than its baseline had.
const MetricUnappliedChanges = "unapplied_changes"

// UnappliedChange is a change AWS did not show when the run ended. Its latency is censored: at
// least NotAppliedAfterSeconds, how long it had waited by then.
type UnappliedChange struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Object is what changed: group/namespace/name of an object group's object, namespace/name of
	// an Ingress or of a TargetGroupBinding.
	Object string `json:"object"`
	// AtSeconds is when the change was made; CensoredSeconds when the run ended without it applied.
	AtSeconds       float64 `json:"atSeconds"`
	CensoredSeconds float64 `json:"censoredSeconds"`
	// NotAppliedAfterSeconds is CensoredSeconds minus when its latency started (the change, or the
	// restart it waited for).
	NotAppliedAfterSeconds float64 `json:"notAppliedAfterSeconds"`
}

// LowerBounds names the summary's metrics whose value is only a lower bound: percentiles reached
// by a change never applied (see Quantiles).
func (s *Summary) LowerBounds() map[string]bool {
	m := map[string]bool{}
	if q := s.BlindTime; q.Count > 0 {
		m[MetricBlindTimeP50], m[MetricBlindTimeP95], m[MetricBlindTimeMax] = q.P50Censored, q.P95Censored, q.MaxCensored
	}
	if q := s.ChangeLatency; q.Count > 0 {
		m[MetricChangeLatencyP50], m[MetricChangeLatencyP95] = q.P50Censored, q.P95Censored
		m[MetricChangeLatencyP99], m[MetricChangeLatencyMax] = q.P99Censored, q.MaxCensored
	}
	for k, v := range m {
		if !v {
			delete(m, k)
		}
	}
	return m
}

// UnappliedAllowed is how many unapplied changes the scenario declared it expects of the strategy
// (its threshold on MetricUnappliedChanges), and whether it declared any.
func (s *Strategy) UnappliedAllowed() (int, bool) {
	for _, t := range s.Thresholds {
		if t.Metric == MetricUnappliedChanges {
			return int(t.Limit), true
		}
	}
	return 0, false
}

// MostUnapplied is the largest count of unapplied changes over the strategy's runs (its summary
// alone without repeats): any run that left changes behind counts, as any failing run fails the
// invariants.
func (s *Strategy) MostUnapplied() int {
	n := s.Summary.UnappliedChanges
	for _, r := range s.Runs {
		n = max(n, r.UnappliedChanges)
	}
	return n
}

func (c *checker) unapplied(p string, s *Strategy) {
	if !c.length(p+".unapplied", len(s.Unapplied), int(MaxCount)) {
		return
	}
	for i, u := range s.Unapplied {
		q := fmt.Sprintf("%s.unapplied[%d]", p, i)
		c.name(q+".id", u.ID)
		c.name(q+".kind", u.Kind)
		c.name(q+".object", u.Object)
		c.seconds(q+".atSeconds", u.AtSeconds)
		c.seconds(q+".censoredSeconds", u.CensoredSeconds)
		c.seconds(q+".notAppliedAfterSeconds", u.NotAppliedAfterSeconds)
	}
}

func (c *checker) censored(p string, q Quantiles) {
	c.within(p+".censored", float64(q.Censored), 0, float64(q.Count))
	if q.Censored == 0 && (q.P50Censored || q.P95Censored || q.P99Censored || q.MaxCensored) {
		c.addf(p, "a percentile is flagged censored, but no value is")
	}
}
