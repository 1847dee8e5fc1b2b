package measure

import (
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/results"
)

type blindTime struct{}

func (blindTime) Name() string { return "blind-time" }

// Measure times the first restart's changes (results.CountsForBlindTime), each from max(change,
// origin) until AWS reflects it; one never applied counts as censored at the run's end. Every such change waits for the whole start-up and for its place in the
// restart's queue, so their median ranks strategies steadily where TTFMR, the luckiest of them,
// does not.
func (blindTime) Measure(in *Input, out *Output) {
	r, ok := in.FirstRestart()
	if !ok {
		return
	}
	a := index(in)
	origin, end := r.Origin(), blindWindowEnd(in, r)
	var lats []stats.Value
	for i := range in.Changes {
		ch := &in.Changes[i]
		applied := a.applied(ch)
		if !results.CountsForBlindTime(r.Stopped, end, ch.At, applied) {
			continue
		}
		out.Summary.BlindTimeChanges++
		if v, ok := a.latency(ch, applied, max(ch.At, origin)); ok {
			lats = append(lats, v)
		}
	}
	out.Summary.BlindTime = CensoredQuantiles(lats)
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

type restartPhases struct{}

func (restartPhases) Name() string { return "restart-phases" }

// Measure records when each step of every restart happened, for the blind-time breakdown. A
// step counts within the restart's window, until the next restart's stop; the first restart's
// first meaningful mutation is TTFMR's end, as its breakdown adds up to TTFMR.
func (restartPhases) Measure(in *Input, out *Output) {
	for i, r := range in.Restarts {
		end := in.restartEnd(i)
		ph := results.RestartPhases{Mode: r.Mode, StoppedSeconds: Round3(r.Stopped), OriginSeconds: Round3(r.Origin()),
			StartedSeconds: Round3(r.Started), LeaderElection: r.LeaderElection, FirstMeaningfulSeconds: out.restartFirstMeaningful[i],
			BlindWindowEndSeconds: blindWindowEnd(in, r), CachesSyncedSeconds: in.cachesSynced(i)}
		if i == 0 {
			ph.FirstMeaningfulSeconds = out.firstMeaningful
		}
		if r.Leading != nil {
			ph.LeadingSeconds = ptr(*r.Leading)
		}
		ph.AtStop = r.AtStop
		for j := range in.Calls {
			c := &in.Calls[j]
			if t := in.Sec(c); c.Service == fakeaws.ServiceELBv2 && t >= r.Started && t < end {
				ph.FirstReconcileSeconds = ptr(t)
				break
			}
		}
		out.Restarts = append(out.Restarts, ph)
	}
	if len(out.Restarts) > 0 {
		out.Restart = &out.Restarts[0]
		for _, p := range out.Restart.AtStop {
			if p.Role == results.RoleStandby && (out.Summary.StandbyRSSBytes == nil || p.RSSBytes > *out.Summary.StandbyRSSBytes) {
				out.Summary.StandbyRSSBytes = &p.RSSBytes
			}
		}
	}
}
