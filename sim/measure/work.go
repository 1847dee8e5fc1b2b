package measure

import (
	"math"

	"github.com/restartsim/restartsim/results"
)

// WorkSample is one scrape of the cumulative reconcile work of the instance that took over after
// the first restart: its counters since its own start.
type WorkSample struct {
	At float64
	// ReconcileSeconds and Reconciles are the reconciles' total duration (real seconds) and number.
	ReconcileSeconds, Reconciles float64
	// QueueDepth is the items ready in its work queue and Active the reconciles running (nil: the
	// controller does not expose it).
	QueueDepth, Active *float64
	// EarlyExitSeconds and EarlyExits are the reconciles that ended in the checkpoint early exit.
	EarlyExitSeconds, EarlyExits float64
}

// idle reports an empty work queue with no reconcile running (false when the depth is unknown).
func (s WorkSample) idle() bool {
	return s.QueueDepth != nil && *s.QueueDepth == 0 && (s.Active == nil || *s.Active == 0)
}

// Work describes Input.Work: whose counters, scraped how often.
type Work struct {
	Source      string
	Controllers []string
	// Interval is the wall time between scrapes, in seconds.
	Interval float64
	// Started is when the instance was started (scenario seconds): one started after the stop is a
	// new process whose counters start at zero; a standby's count from the stop.
	Started float64
	Samples []WorkSample
}

// restartWork is measureRestartWork's result (nil: no restart, or no work scraped).
type restartWork struct{ work *results.RestartWork }

func (w restartWork) addTo(out *Output) { out.Summary.Work = w.work }

// measureRestartWork attributes the taking-over instance's reconcile work to the first restart's
// events: its first meaningful mutation (firstMeaningful, nil: none) and the drain of its work
// queue. Each figure is the last scrape at or before the event less the counters at the
// instance's start; nothing is interpolated.
func measureRestartWork(in *Input, firstMeaningful *float64) restartWork {
	r, ok := in.FirstRestart()
	if !ok || in.Work == nil {
		return restartWork{}
	}
	w := in.Work
	res := &results.RestartWork{Source: w.Source, Controllers: w.Controllers, ScrapeIntervalSeconds: Round3(w.Interval)}
	base := WorkSample{}
	if w.Started < r.Stopped {
		if s, ok := lastAtOrBefore(w.Samples, r.Stopped); ok {
			base = s
		}
	}
	if fm := firstMeaningful; fm != nil {
		s, ok := lastAtOrBefore(w.Samples, *fm)
		if !ok || s.At < r.Stopped {
			s = base // no scrape of the restart's work before the event: nothing counted yet
		}
		res.ReconcileSecondsBeforeFirstMeaningful = ptr(s.ReconcileSeconds - base.ReconcileSeconds)
		res.ReconcilesBeforeFirstMeaningful = count(s.Reconciles - base.Reconciles)
	}
	for _, s := range w.Samples {
		if s.At < r.Stopped || s.Reconciles <= base.Reconciles || !s.idle() {
			continue
		}
		res.DrainedSeconds = ptr(s.At)
		res.ReconcileSecondsUntilDrained = ptr(s.ReconcileSeconds - base.ReconcileSeconds)
		res.ReconcilesUntilDrained = count(s.Reconciles - base.Reconciles)
		if n := s.EarlyExits - base.EarlyExits; n > 0 {
			res.EarlyExits = count(n)
			per := (s.EarlyExitSeconds - base.EarlyExitSeconds) / n
			res.EarlyExitSecondsPerBinding = &per // sub-millisecond: not rounded
		}
		break
	}
	return restartWork{res}
}

// lastAtOrBefore is the last sample at or before t (samples in time order).
func lastAtOrBefore(samples []WorkSample, t float64) (WorkSample, bool) {
	var last WorkSample
	found := false
	for _, s := range samples {
		if s.At > t {
			break
		}
		last, found = s, true
	}
	return last, found
}

func count(v float64) *int { n := int(math.Round(v)); return &n }
