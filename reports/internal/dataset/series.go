package dataset

import (
	"sort"
	"strings"

	"github.com/restartsim/restartsim/results"
)

// Point is one (x, y) pair.
type Point struct{ X, Y float64 }

// Points is a series of points. It satisfies plotter.XYer.
type Points []Point

// Len returns the number of points.
func (p Points) Len() int { return len(p) }

// XY returns the i-th point.
func (p Points) XY(i int) (x, y float64) { return p[i].X, p[i].Y }

// Line is a named series.
type Line struct {
	Name   string
	Points Points
}

// Values is a list of bar heights. It satisfies plotter.Valuer.
type Values []float64

// Len returns the number of values.
func (v Values) Len() int { return len(v) }

// Value returns the i-th value.
func (v Values) Value(i int) float64 { return v[i] }

// MarkerKind tells a chart how to draw a marker.
type MarkerKind int

const (
	// MarkerRestart is an instant: a controller restart.
	MarkerRestart MarkerKind = iota
	// MarkerFault is a window (or an instant when End == At): an AWS fault.
	MarkerFault
	// MarkerPhase is an instant: a restart's phase began (the Lease taken, the caches synced).
	MarkerPhase
)

// Marker is a timeline event drawn on a time axis.
type Marker struct {
	Kind    MarkerKind
	Label   string
	At, End float64 // scenario seconds; End == At for instants
}

// MaxMarkers caps the markers drawn on one panel: past it their labels cannot be read.
const MaxMarkers = 40

// Markers returns the restart and fault markers of the given strategies' events, deduplicated
// (strategies share one timeline, so their events usually coincide) and sorted by time: the first
// MaxMarkers of them, and how many more there are.
func Markers(strategies ...*results.Strategy) (ms []Marker, more int) {
	seen := map[Marker]bool{}
	var out []Marker
	for _, s := range strategies {
		for _, e := range s.Events {
			m, ok := marker(e)
			if ok && !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	if len(out) > MaxMarkers {
		return out[:MaxMarkers], len(out) - MaxMarkers
	}
	return out, 0
}

func marker(e results.Event) (Marker, bool) {
	end := e.EndSeconds
	if end < e.AtSeconds {
		end = e.AtSeconds
	}
	label := e.Kind
	if e.Detail != "" {
		label += ": " + e.Detail
	}
	switch {
	case e.Kind == "restart":
		return Marker{Kind: MarkerRestart, Label: label, At: e.AtSeconds, End: e.AtSeconds}, true
	case strings.Contains(strings.ToLower(e.Kind), "fault"):
		return Marker{Kind: MarkerFault, Label: label, At: e.AtSeconds, End: end}, true
	}
	return Marker{}, false
}
