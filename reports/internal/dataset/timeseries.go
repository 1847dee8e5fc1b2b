package dataset

import (
	"math"
	"sort"
	"strings"

	"github.com/restartsim/restartsim/reports/results"
)

// Timeline indexes timeseries.csv samples by strategy and series, and fixes the common time
// axis: every strategy is binned on the same bins so panels line up.
type Timeline struct {
	// First and Last are the first and last second present in the samples.
	First, Last int
	// BinSeconds is the bin width; rates are per second, gauges the maximum within a bin.
	BinSeconds int
	series     map[string]map[string]map[int]float64 // strategy → series → second → value
}

// NewTimeline indexes samples; maxBins caps the number of bins (values ≤ 0 mean one bin per
// second). Duplicate rows for one (strategy, series, second) are summed.
func NewTimeline(samples []results.Sample, maxBins int) *Timeline {
	t := &Timeline{First: math.MaxInt, Last: math.MinInt, BinSeconds: 1, series: map[string]map[string]map[int]float64{}}
	for _, s := range samples {
		byName := t.series[s.Strategy]
		if byName == nil {
			byName = map[string]map[int]float64{}
			t.series[s.Strategy] = byName
		}
		bySec := byName[s.Series]
		if bySec == nil {
			bySec = map[int]float64{}
			byName[s.Series] = bySec
		}
		bySec[s.Second] += s.Value
		t.First, t.Last = min(t.First, s.Second), max(t.Last, s.Second)
	}
	if len(samples) == 0 {
		t.First, t.Last = 0, 0
	}
	if span := t.Last - t.First + 1; maxBins > 0 && span > maxBins {
		t.BinSeconds = (span + maxBins - 1) / maxBins
	}
	return t
}

// Empty reports whether there are no samples.
func (t *Timeline) Empty() bool { return len(t.series) == 0 }

// Has reports whether the strategy has any samples.
func (t *Timeline) Has(strategy string) bool { return len(t.series[strategy]) > 0 }

// Operations returns the operations that have a series with the given prefix (e.g.
// results.SeriesAWSCalls) for the strategy, ordered by total descending, then by name.
func (t *Timeline) Operations(strategy, prefix string) []string {
	totals := map[string]float64{}
	for name, bySec := range t.series[strategy] {
		op, ok := strings.CutPrefix(name, prefix+":")
		if !ok {
			continue
		}
		for _, v := range bySec {
			totals[op] += v
		}
	}
	ops := make([]string, 0, len(totals))
	for op := range totals {
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool {
		if totals[ops[i]] != totals[ops[j]] {
			return totals[ops[i]] > totals[ops[j]]
		}
		return ops[i] < ops[j]
	})
	return ops
}

// bins returns the start second of every bin.
func (t *Timeline) bins() []int {
	var out []int
	for s := t.First; s <= t.Last; s += t.BinSeconds {
		out = append(out, s)
	}
	return out
}

// x is the plotted position of a bin: its middle (the second itself for 1-second bins).
func (t *Timeline) x(start int) float64 {
	return float64(start) + float64(t.BinSeconds-1)/2
}

// Rate returns the per-second rate of a counter series (missing seconds count as zero): the bin's
// sum divided by the bin width. The sum of Y × BinSeconds equals the series total.
func (t *Timeline) Rate(strategy string, series ...string) Points {
	pts := make(Points, 0, (t.Last-t.First)/t.BinSeconds+1)
	for _, start := range t.bins() {
		var total float64
		for _, name := range series {
			bySec := t.series[strategy][name]
			for s := start; s < start+t.BinSeconds; s++ {
				total += bySec[s]
			}
		}
		pts = append(pts, Point{X: t.x(start), Y: total / float64(t.BinSeconds)})
	}
	return pts
}

// Gauge returns the maximum of a gauge series per bin. A second without a sample holds the last
// sampled value (zero before the first sample).
func (t *Timeline) Gauge(strategy, series string) Points {
	bySec := t.series[strategy][series]
	pts := make(Points, 0, (t.Last-t.First)/t.BinSeconds+1)
	last := 0.0
	for _, start := range t.bins() {
		peak := math.Inf(-1)
		for s := start; s < start+t.BinSeconds && s <= t.Last; s++ {
			if v, ok := bySec[s]; ok {
				last = v
			}
			peak = math.Max(peak, last)
		}
		pts = append(pts, Point{X: t.x(start), Y: peak})
	}
	return pts
}

// SeriesNames returns every series name the strategy has, sorted.
func (t *Timeline) SeriesNames(strategy string) []string {
	var out []string
	for name := range t.series[strategy] {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
