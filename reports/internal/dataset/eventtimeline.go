package dataset

import (
	"math"
	"sort"

	"github.com/restartsim/restartsim/results"
)

// MaxTimelineChanges caps the change lanes per strategy; the restart's changes come first.
const MaxTimelineChanges = 24

// Phase names of the controller lane, in the order a restart goes through them.
const (
	PhaseDown     = "down"
	PhaseStarting = "started, caches syncing" // no leader election
	PhaseWaiting  = "started, waiting for the Lease"
	PhaseLeading  = "leading, caches syncing"
	PhaseSynced   = "caches synced, reconciling"
	PhaseRunning  = "applying changes"
)

// Span is one phase of the controller lane.
type Span struct {
	Phase    string
	From, To float64
}

// ChangeBar is one change lane: made at Made, applied at Applied (nil: never within the run).
type ChangeBar struct {
	ID      string
	Made    float64
	Applied *float64
	// OfRestart marks the restart's changes, those blind time counts.
	OfRestart bool
}

// TimelinePanel is one strategy's part of the event timeline.
type TimelinePanel struct {
	Strategy string
	// Spans are the phases of every restart, in order; each restart's last phase lasts until the
	// next restart's stop.
	Spans []Span
	// FirstAWSCalls and FirstMeaningfuls are each restart's instants on the controller lane
	// (those it exposes).
	FirstAWSCalls, FirstMeaningfuls []float64
	Changes                         []ChangeBar
	// MoreChanges counts the changes left out beyond MaxTimelineChanges.
	MoreChanges int
	Markers     []Marker
	// MoreMarkers counts the events left out beyond MaxMarkers.
	MoreMarkers int
}

// EventTimeline is the Gantt-style figure of each strategy's restart and changes.
type EventTimeline struct {
	Panels []TimelinePanel
	// From and To are the time axis, shared by every panel.
	From, To float64
}

// Empty reports whether no strategy had a restart to draw.
func (t EventTimeline) Empty() bool { return len(t.Panels) == 0 }

// NewEventTimeline prepares the event timeline from each strategy's restarts and changes; the
// changes blind time counts are the first restart's.
func NewEventTimeline(r *results.Results) EventTimeline {
	out := EventTimeline{From: math.Inf(1), To: math.Inf(-1)}
	widen := func(v float64) { out.From, out.To = math.Min(out.From, v), math.Max(out.To, v) }
	for i := range r.Strategies {
		s := &r.Strategies[i]
		ph := s.Restart
		if ph == nil {
			continue
		}
		all := s.Restarts
		if len(all) == 0 {
			all = []results.RestartPhases{*ph}
		}
		p := TimelinePanel{Strategy: s.Name}
		stops := map[float64]bool{}
		for k := range all {
			rk := &all[k]
			stops[rk.StoppedSeconds] = true
			if n := len(p.Spans); n > 0 {
				p.Spans[n-1].To = math.Max(p.Spans[n-1].From, rk.StoppedSeconds)
			}
			p.Spans = append(p.Spans, Spans(rk)...)
			if rk.FirstAWSCallSeconds != nil {
				p.FirstAWSCalls = append(p.FirstAWSCalls, *rk.FirstAWSCallSeconds)
			}
			if rk.FirstMeaningfulSeconds != nil {
				p.FirstMeaningfuls = append(p.FirstMeaningfuls, *rk.FirstMeaningfulSeconds)
			}
		}
		ms, more := Markers(s)
		p.MoreMarkers = more
		for _, m := range ms {
			if m.Kind != MarkerRestart || !stops[m.At] { // the phases show the restarts
				p.Markers = append(p.Markers, m)
			}
		}
		for _, sp := range p.Spans {
			widen(sp.From)
		}
		for _, c := range s.Changes {
			p.Changes = append(p.Changes, ChangeBar{ID: c.ID, Made: c.AtSeconds, Applied: c.AppliedSeconds, OfRestart: OfRestart(ph, c)})
		}
		sort.SliceStable(p.Changes, func(a, b int) bool {
			ca, cb := p.Changes[a], p.Changes[b]
			if ca.OfRestart != cb.OfRestart {
				return ca.OfRestart
			}
			return ca.Made < cb.Made
		})
		if n := len(p.Changes); n > MaxTimelineChanges {
			p.Changes, p.MoreChanges = p.Changes[:MaxTimelineChanges], n-MaxTimelineChanges
		}
		for _, c := range p.Changes {
			widen(c.Made)
			if c.Applied != nil {
				widen(*c.Applied)
			}
		}
		out.Panels = append(out.Panels, p)
	}
	if out.Empty() {
		return EventTimeline{}
	}
	pad := math.Max(0.5, (out.To-out.From)*0.03)
	out.From, out.To = out.From-pad, out.To+pad
	for i := range out.Panels {
		spans := out.Panels[i].Spans
		spans[len(spans)-1].To = out.To // the last phase lasts past the drawing
	}
	return out
}

// OfRestart reports whether blind time counts c (drift repairs are not changes of the workload).
func OfRestart(ph *results.RestartPhases, c results.Change) bool {
	return c.Kind != "drift" && results.CountsForBlindTime(ph.StoppedSeconds, ph.BlindWindowEndSeconds, c.AtSeconds, c.AppliedSeconds)
}

// Spans splits a restart into the controller lane's phases; steps the controller does not expose
// merge into the phase before them.
func Spans(ph *results.RestartPhases) []Span {
	starting := PhaseStarting
	if ph.LeaderElection {
		starting = PhaseWaiting
	}
	steps := []struct {
		phase string
		at    *float64
	}{
		{starting, &ph.StartedSeconds},
		{PhaseLeading, ph.LeadingSeconds},
		{PhaseSynced, ph.CachesSyncedSeconds},
		{PhaseRunning, ph.FirstMeaningfulSeconds},
	}
	spans := []Span{{Phase: PhaseDown, From: ph.StoppedSeconds, To: ph.StoppedSeconds}}
	for _, st := range steps {
		if st.at == nil {
			continue
		}
		at := math.Max(*st.at, spans[len(spans)-1].From)
		spans[len(spans)-1].To = at
		spans = append(spans, Span{Phase: st.phase, From: at, To: at})
	}
	return spans
}
