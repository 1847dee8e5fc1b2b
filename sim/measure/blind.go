package measure

import (
	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/results"
)

// blindTime is measureBlindTime's result.
type blindTime struct {
	changes int
	latency results.Quantiles
}

func (b blindTime) addTo(out *Output) {
	out.Summary.BlindTimeChanges = b.changes
	out.Summary.BlindTime = b.latency
}

// measureBlindTime times the first restart's changes (results.CountsForBlindTime), each from
// max(change, origin) until AWS reflects it (applied, by index of in.Changes: the change
// timings); one never applied counts as censored at the run's end. Every such change waits for
// the whole start-up and for its place in the restart's queue, so their median ranks strategies
// steadily where TTFMR, the luckiest of them, does not.
func measureBlindTime(in *Input, applied []*float64) blindTime {
	r, ok := in.FirstRestart()
	if !ok {
		return blindTime{}
	}
	return restartChangeLatency(in, r, applied, r.Origin())
}

// restartChangeLatency times the restart r's changes, each from max(change, from).
func restartChangeLatency(in *Input, r Restart, applied []*float64, from float64) blindTime {
	end := blindWindowEnd(in, r)
	var res blindTime
	var lats []stats.Value
	for i := range in.Changes {
		ch := &in.Changes[i]
		if !results.CountsForBlindTime(r.Stopped, end, ch.At, applied[i]) {
			continue
		}
		res.changes++
		if v, ok := latency(in, i, applied[i], max(ch.At, from)); ok {
			lats = append(lats, v)
		}
	}
	res.latency = CensoredQuantiles(lats)
	return res
}

// blindWindowEnd is when the second churn step after the restart's stop began (nil: none did).
// The steps that began while no instance ran, before the replacement started, count as one: every
// change made while the controller was down is one of the restart's.
func blindWindowEnd(in *Input, r Restart) *float64 {
	n := 0
	for _, at := range in.ChurnAt {
		if at < r.Stopped || n == 1 && at < r.Started {
			continue
		}
		if n++; n == 2 {
			return ptr(at)
		}
	}
	return nil
}

// restartPhases is measureRestartPhases's result.
type restartPhases struct {
	phases []results.RestartPhases
	// standbyRSS is the largest resident size of a standby at the first restart's stop (nil: none).
	standbyRSS *int64
}

// first is the first restart's steps (nil without a restart).
func (p restartPhases) first() *results.RestartPhases {
	if len(p.phases) == 0 {
		return nil
	}
	return &p.phases[0]
}

func (p restartPhases) addTo(out *Output) {
	out.Restarts = p.phases
	if len(out.Restarts) > 0 {
		out.Restart = &out.Restarts[0]
	}
	out.Summary.StandbyRSSBytes = p.standbyRSS
}

// measureRestartPhases records when each step of every restart happened, for the blind-time
// breakdown. A step counts within the restart's window, until the next restart's stop; the first
// restart's first meaningful mutation is TTFMR's end, as its breakdown adds up to TTFMR.
func measureRestartPhases(in *Input, first firstMeaningful) restartPhases {
	var res restartPhases
	for i, r := range in.Restarts {
		end := in.restartEnd(i)
		ph := results.RestartPhases{Mode: r.Mode, StoppedSeconds: Round3(r.Stopped), OriginSeconds: Round3(r.Origin()),
			StartedSeconds: Round3(r.Started), LeaderElection: r.LeaderElection, FirstMeaningfulSeconds: first.perRestart[i],
			BlindWindowEndSeconds: blindWindowEnd(in, r), CachesSyncedSeconds: in.cachesSynced(i)}
		if i == 0 {
			ph.FirstMeaningfulSeconds = first.at
		}
		if r.Leading != nil {
			ph.LeadingSeconds = ptr(*r.Leading)
		}
		ph.LeaseRequestedSeconds = in.leaseRequested(r, end)
		ph.AtStop = r.AtStop
		for j := range in.Calls {
			c := &in.Calls[j]
			if t := in.Sec(c); t >= r.Started && t < end {
				ph.FirstAWSCallSeconds, ph.FirstAWSCallService = ptr(t), c.Service
				break
			}
		}
		res.phases = append(res.phases, ph)
	}
	if ph := res.first(); ph != nil {
		for _, p := range ph.AtStop {
			if p.Role == results.RoleStandby && (res.standbyRSS == nil || p.RSSBytes > *res.standbyRSS) {
				res.standbyRSS = &p.RSSBytes
			}
		}
	}
	return res
}
