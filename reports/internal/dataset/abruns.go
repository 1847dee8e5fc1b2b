package dataset

import (
	"math"
	"slices"

	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/results"
)

// ABPanel is one compared metric of an A/B run: each side's runs at their position in the order
// the runs were made, so drift over the run shows as a slope both sides share.
type ABPanel struct {
	Metric string
	// Baseline and Candidate are (run position from 1, value); runs that never reached the event
	// the metric measures are left out and counted in the Missing fields.
	Baseline, Candidate               Points
	BaselineMissing, CandidateMissing int
	// BaselineMedian and CandidateMedian are the sides' medians as the gate takes them
	// (stats.Median, a missing run ranking last): +Inf when at least half the side's runs are missing.
	BaselineMedian, CandidateMedian float64
}

// ABRuns is the A/B figure: one panel per compared metric that either side measured.
type ABRuns struct {
	Baseline, Candidate string // the sides' strategy names
	Runs                int    // runs in all, both sides
	Panels              []ABPanel
}

// NewABRuns prepares the A/B figure; ok is false when r holds no A/B comparison.
func NewABRuns(r *results.Results) (ABRuns, bool) {
	ab := r.AB
	if ab == nil {
		return ABRuns{}, false
	}
	base, _ := r.Strategy(ab.Baseline)
	cand, _ := r.Strategy(ab.Candidate)
	if base == nil || cand == nil {
		return ABRuns{}, false
	}
	basePos, candPos := positions(ab.Order, ab.Baseline, len(runsOf(base))), positions(ab.Order, ab.Candidate, len(runsOf(cand)))
	out := ABRuns{Baseline: ab.Baseline, Candidate: ab.Candidate, Runs: len(basePos) + len(candPos)}
	for _, m := range ab.Metrics {
		p := ABPanel{Metric: m.Metric}
		var bv, cv []float64
		p.Baseline, p.BaselineMissing, bv = sidePoints(runsOf(base), basePos, m.Metric)
		p.Candidate, p.CandidateMissing, cv = sidePoints(runsOf(cand), candPos, m.Metric)
		if len(bv) == 0 && len(cv) == 0 {
			continue // neither side measures it (e.g. CPU of in-process controllers)
		}
		p.BaselineMedian, p.CandidateMedian = sideMedian(bv, p.BaselineMissing), sideMedian(cv, p.CandidateMissing)
		out.Panels = append(out.Panels, p)
	}
	return out, true
}

// runsOf is a strategy's runs, or its summary alone when it ran once.
func runsOf(s *results.Strategy) []results.Summary {
	if len(s.Runs) == 0 {
		return []results.Summary{s.Summary}
	}
	return s.Runs
}

// positions is where (from 1) each of a side's n runs came in order; runs the order does not
// account for (results written before the order was recorded) follow in sequence.
func positions(order []string, name string, n int) []float64 {
	var pos []float64
	for i, o := range order {
		if o == name && len(pos) < n {
			pos = append(pos, float64(i+1))
		}
	}
	for next := float64(len(order) + 1); len(pos) < n; next++ {
		pos = append(pos, next)
	}
	return pos
}

func sidePoints(runs []results.Summary, pos []float64, metric string) (pts Points, missing int, vals []float64) {
	for i := range runs {
		v, ok := runs[i].Metrics()[metric]
		if !ok || math.IsInf(v, 0) || math.IsNaN(v) {
			missing++
			continue
		}
		pts = append(pts, Point{X: pos[i], Y: v})
		vals = append(vals, v)
	}
	return pts, missing, vals
}

// sideMedian is the median of a side's measured values and its missing runs.
func sideMedian(vals []float64, missing int) float64 {
	all := slices.Clone(vals)
	for range missing {
		all = append(all, stats.Missing)
	}
	return stats.Median(all)
}
