package dataset

import (
	"fmt"
	"sort"

	"github.com/restartsim/restartsim/results"
)

// Caps on what one figure draws, so that a figure stays readable and its image small whatever the
// results hold.
const (
	// MaxBins caps the number of time bins per series, so a long scenario stays readable.
	MaxBins = 300
	// MaxOperations caps the operations drawn per panel of figure 1; the quieter ones are drawn as
	// one line.
	MaxOperations = 10
	// MaxCDFPoints caps the points of a latency CDF line; more cannot be told apart on the figure.
	MaxCDFPoints = 2000
	// MaxLines caps the lines of figure 5 (one per strategy).
	MaxLines = 12
)

// CallRatePanel is one strategy's panel of the AWS calls figure.
type CallRatePanel struct {
	Strategy string
	// Calls holds one line per operation (calls/s), busiest first.
	Calls []Line
	// Throttled is the rate of throttled calls, all operations together.
	Throttled Line
	Markers   []Marker
	// MoreMarkers counts the events left out beyond MaxMarkers.
	MoreMarkers int
}

// CallRates is figure 1: AWS calls per second per operation over scenario time.
type CallRates struct {
	BinSeconds int
	Panels     []CallRatePanel
}

// NewCallRates prepares figure 1 from the strategies that have time series.
func NewCallRates(r *results.Results, t *Timeline) CallRates {
	out := CallRates{BinSeconds: t.BinSeconds}
	for i := range r.Strategies {
		s := &r.Strategies[i]
		if !t.Has(s.Name) {
			continue
		}
		p := CallRatePanel{Strategy: s.Name}
		p.Markers, p.MoreMarkers = Markers(s)
		ops := t.Operations(s.Name, results.SeriesAWSCalls)
		for i, op := range ops {
			if i == MaxOperations-1 && len(ops) > MaxOperations {
				var rest []string
				for _, op := range ops[i:] {
					rest = append(rest, results.SeriesAWSCalls+":"+op)
				}
				p.Calls = append(p.Calls, Line{Name: fmt.Sprintf("%d other operations", len(rest)), Points: t.Rate(s.Name, rest...)})
				break
			}
			p.Calls = append(p.Calls, Line{Name: op, Points: t.Rate(s.Name, results.SeriesAWSCalls+":"+op)})
		}
		var throttled []string
		for _, op := range t.Operations(s.Name, results.SeriesAWSThrottled) {
			throttled = append(throttled, results.SeriesAWSThrottled+":"+op)
		}
		p.Throttled = Line{Name: "throttled (all operations)", Points: t.Rate(s.Name, throttled...)}
		out.Panels = append(out.Panels, p)
	}
	return out
}

// CDFLine is one strategy's empirical CDF of per-change latency.
type CDFLine struct {
	Strategy string
	// Points are (latency, fraction of all changes applied within it), starting at fraction 0.
	// Changes never applied keep the curve below 1.
	Points           Points
	Changes, Applied int
	// TTFMR is the strategy's time to first meaningful reconcile, nil if it never happened.
	TTFMR *float64
}

// LatencyCDF is figure 2.
type LatencyCDF struct{ Lines []CDFLine }

// NewLatencyCDF prepares figure 2 from each strategy's changes.
func NewLatencyCDF(r *results.Results) LatencyCDF {
	var out LatencyCDF
	for _, s := range r.Strategies {
		var lat []float64
		for _, c := range s.Changes {
			if c.LatencySeconds != nil {
				lat = append(lat, *c.LatencySeconds)
			}
		}
		sort.Float64s(lat)
		l := CDFLine{Strategy: s.Name, Changes: len(s.Changes), Applied: len(lat), TTFMR: s.Summary.TTFMRSeconds}
		if len(lat) > 0 {
			l.Points = append(l.Points, Point{X: lat[0], Y: 0})
		}
		// Past MaxCDFPoints, every step-th change (and the last) makes a step.
		step := max(1, (len(lat)+MaxCDFPoints-2)/(MaxCDFPoints-1))
		for i, v := range lat {
			if i%step == step-1 || i == len(lat)-1 {
				l.Points = append(l.Points, Point{X: v, Y: float64(i+1) / float64(len(s.Changes))})
			}
		}
		out.Lines = append(out.Lines, l)
	}
	return out
}

// Empty reports whether no strategy has an applied change.
func (c LatencyCDF) Empty() bool {
	for _, l := range c.Lines {
		if l.Applied > 0 {
			return false
		}
	}
	return true
}

// QueueDepths is figure 3: one line per strategy in each of two panels.
type QueueDepths struct {
	BinSeconds  int
	Work        []Line
	Deferred    []Line
	Markers     []Marker
	MoreMarkers int
}

// NewQueueDepths prepares figure 3.
func NewQueueDepths(r *results.Results, t *Timeline) QueueDepths {
	out := QueueDepths{BinSeconds: t.BinSeconds}
	var with []*results.Strategy
	for i := range r.Strategies {
		s := &r.Strategies[i]
		if !t.Has(s.Name) {
			continue
		}
		with = append(with, s)
		out.Work = append(out.Work, Line{Name: s.Name, Points: t.Gauge(s.Name, results.SeriesQueueDepth)})
		out.Deferred = append(out.Deferred, Line{Name: s.Name, Points: t.Gauge(s.Name, results.SeriesDeferredDepth)})
	}
	out.Markers, out.MoreMarkers = Markers(with...)
	return out
}

// Bars is figure 4: per strategy, AWS calls before the first meaningful reconcile and k8s writes.
type Bars struct {
	Strategies             []string
	CallsBeforeFirst       Values
	ThrottledBeforeFirst   Values
	K8sWrites              Values
	CheckpointPatches      Values
	FirstMeaningfulReached []bool
}

// NewBars prepares figure 4 from the summaries (the same metric values the gate reads).
func NewBars(r *results.Results) Bars {
	var b Bars
	for _, s := range r.Strategies {
		m := s.Summary.Metrics()
		b.Strategies = append(b.Strategies, s.Name)
		b.CallsBeforeFirst = append(b.CallsBeforeFirst, m[results.MetricAWSCallsBeforeFirstMeaningful])
		b.ThrottledBeforeFirst = append(b.ThrottledBeforeFirst, m[results.MetricThrottledBeforeFirstMeaningful])
		b.K8sWrites = append(b.K8sWrites, m[results.MetricK8sWrites])
		b.CheckpointPatches = append(b.CheckpointPatches, m[results.MetricCheckpointPatches])
		b.FirstMeaningfulReached = append(b.FirstMeaningfulReached, s.Summary.TTFMRSeconds != nil)
	}
	return b
}

// Sweep is figure 5: TTFMR against fleet size, one line per strategy. Points with a
// non-positive size or TTFMR are left out (log axes).
type Sweep struct {
	Lines []Line
	// Predicted holds, for each of Lines, the restart-queue model's forecast at the same sizes (no
	// points: the model did not explain the strategy).
	Predicted []Line
}

// NewSweep prepares figure 5; ok is false when the run has no sweep.
func NewSweep(r *results.Results) (s Sweep, ok bool) {
	if len(r.Sweep) == 0 {
		return s, false
	}
	points := map[string]Points{}
	var names []string
	for _, st := range r.Strategies {
		names = append(names, st.Name)
	}
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	sweep := append([]results.SweepPoint(nil), r.Sweep...)
	sort.SliceStable(sweep, func(i, j int) bool { return sweep[i].TGBs < sweep[j].TGBs })
	predicted := map[string]Points{}
	for _, p := range sweep {
		for name, v := range p.PredictedTTFMRByStr {
			if p.TGBs > 0 && v > 0 {
				predicted[name] = append(predicted[name], Point{X: float64(p.TGBs), Y: v})
			}
		}
		for name, v := range p.TTFMRByStr {
			if !known[name] {
				known[name] = true
				names = append(names, name)
			}
			if p.TGBs > 0 && v > 0 {
				points[name] = append(points[name], Point{X: float64(p.TGBs), Y: v})
			}
		}
	}
	for _, n := range names {
		if len(points[n]) > 0 && len(s.Lines) < MaxLines {
			s.Lines = append(s.Lines, Line{Name: n, Points: points[n]})
			s.Predicted = append(s.Predicted, Line{Name: n, Points: predicted[n]})
		}
	}
	return s, len(s.Lines) > 0
}

// BinLabel describes the binning for axis labels, e.g. "per 1 s" or "mean over 12 s bins".
func BinLabel(binSeconds int, gauge bool) string {
	switch {
	case binSeconds <= 1:
		return "1 s resolution"
	case gauge:
		return fmt.Sprintf("max per %d s bin", binSeconds)
	default:
		return fmt.Sprintf("mean over %d s bins", binSeconds)
	}
}
