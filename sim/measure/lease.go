package measure

import "github.com/restartsim/restartsim/results"

// leaseSplit is measureLeaseSplit's result (nil: the first restart's replacement waited for no Lease).
type leaseSplit struct{ split *results.LeaseSplit }

func (l leaseSplit) addTo(out *Output) { out.Summary.Lease = l.split }

// measureLeaseSplit splits the first restart's start-up at the Lease its replacement acquired
// (restart, its phases; applied, when AWS reflected each change): the start-up before its first
// request for the Lease, the wait until it held it, and from then the first meaningful mutation
// and the restart's changes (results.LeaseSplit says why the parts are judged apart).
func measureLeaseSplit(in *Input, restart *results.RestartPhases, applied []*float64) leaseSplit {
	r, ok := in.FirstRestart()
	if !ok || restart == nil || !r.LeaderElection || r.Leading == nil {
		return leaseSplit{}
	}
	origin, leading := r.Origin(), *r.Leading
	split := &results.LeaseSplit{WaitSeconds: ptr(max(0, leading-origin))}
	if at := restart.LeaseRequestedSeconds; at != nil {
		split.StartupBeforeLeaseSeconds = ptr(max(0, *at-origin))
	}
	if at := restart.FirstMeaningfulSeconds; at != nil {
		split.TTFMRAfterSeconds = ptr(max(0, *at-leading))
	}
	if q := restartChangeLatency(in, r, applied, leading).latency; q.Count > 0 {
		split.BlindAfterP50Seconds = &q.P50
	}
	return leaseSplit{split}
}

// leaseRequested is the first request for a Lease by the controller's identity from restart r's
// replacement, within the restart's window (until end): client-go counts a held Lease's expiry
// from when the instance first observed it. Nil without an audit log, without leader election,
// or when the instance that took over started before the stop (a standby, which observed the
// Lease all along).
func (in *Input) leaseRequested(r Restart, end float64) *float64 {
	if !in.HasAudit || !r.LeaderElection || r.Started < r.Stopped {
		return nil
	}
	var first *float64 // the log is in the order requests completed; At is when each was received
	for _, e := range in.Audit {
		if e.Resource == "leases" && e.At >= r.Started && e.At < end && (first == nil || e.At < *first) {
			first = ptr(e.At)
		}
	}
	return first
}
