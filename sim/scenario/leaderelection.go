package scenario

import (
	"time"

	"github.com/restartsim/restartsim/internal/leasetiming"
)

// ElectsLeader reports whether the strategy's replicas elect a leader: as set, else with more
// than one replica (always, for an inProcess strategy: a manager in production runs with it).
func (st Strategy) ElectsLeader(replicas int) bool {
	if st.LeaderElection != nil {
		return *st.LeaderElection
	}
	return replicas > 1 || st.InProcess != nil
}

// LeaseTimings returns the lease duration, renew deadline and retry period in scenario time, unset
// ones at controller-runtime's defaults.
func (st Strategy) LeaseTimings() (leaseDuration, renewDeadline, retryPeriod time.Duration) {
	or := func(d *Duration, def time.Duration) time.Duration {
		if d == nil {
			return def
		}
		return d.Duration
	}
	return or(st.LeaseDuration, leasetiming.DefaultLeaseDuration), or(st.RenewDeadline, leasetiming.DefaultRenewDeadline),
		or(st.RetryPeriod, leasetiming.DefaultRetryPeriod)
}
