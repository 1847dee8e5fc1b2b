package results

// Metrics of the first restart's start-up split at the Lease (see LeaseSplit).
const (
	MetricStartupBeforeLease = "startup_before_lease_seconds"
	MetricLeaseWait          = "lease_wait_seconds"
	MetricTTFMRAfterLease    = "ttfmr_after_lease_seconds"
	MetricBlindAfterLeaseP50 = "blind_time_after_lease_p50_seconds"
)

// LeaseSplit splits the first restart's blind start-up at the Lease, for a replacement that had
// to acquire one (scenario seconds; a nil figure: its event never happened or is not known).
//
// client-go counts a held Lease's expiry from when the new instance first observes it, and tries
// to acquire it again only every retry period (jittered), so the Lease wait is the start-up
// before the first request, plus the Lease's duration, plus up to a retry period: a slower
// process start lengthens it one for one, while the retry tick spreads it by seconds. The part
// after the Lease does not carry that tick, so each part is judged with its own floor.
type LeaseSplit struct {
	// StartupBeforeLeaseSeconds is from the restart (stop plus downtime) to the replacement's
	// first request for the Lease (from the audit log).
	StartupBeforeLeaseSeconds *float64 `json:"startupBeforeLeaseSeconds,omitempty"`
	// WaitSeconds is from the restart to the Lease acquired.
	WaitSeconds *float64 `json:"waitSeconds,omitempty"`
	// TTFMRAfterSeconds is from the Lease acquired to the first meaningful mutation: TTFMR less
	// the Lease wait.
	TTFMRAfterSeconds *float64 `json:"ttfmrAfterSeconds,omitempty"`
	// BlindAfterP50Seconds is the median blind time of the restart's changes, each timed from
	// itself or the Lease acquired, whichever is later.
	BlindAfterP50Seconds *float64 `json:"blindAfterP50Seconds,omitempty"`
}

func (l *LeaseSplit) addMetrics(m map[string]float64) {
	if l == nil {
		return
	}
	for name, v := range map[string]*float64{MetricStartupBeforeLease: l.StartupBeforeLeaseSeconds, MetricLeaseWait: l.WaitSeconds,
		MetricTTFMRAfterLease: l.TTFMRAfterSeconds, MetricBlindAfterLeaseP50: l.BlindAfterP50Seconds} {
		if v != nil {
			m[name] = *v
		}
	}
}

func (c *checker) leaseSplit(p string, l *LeaseSplit) {
	if l == nil {
		return
	}
	c.optSeconds(p+".startupBeforeLeaseSeconds", l.StartupBeforeLeaseSeconds)
	c.optSeconds(p+".waitSeconds", l.WaitSeconds)
	c.optSeconds(p+".ttfmrAfterSeconds", l.TTFMRAfterSeconds)
	c.optSeconds(p+".blindAfterP50Seconds", l.BlindAfterP50Seconds)
}
