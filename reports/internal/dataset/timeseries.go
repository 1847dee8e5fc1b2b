package dataset

import (
	"math"
	"sort"
	"strings"

	"github.com/restartsim/restartsim/results"
)

// Timeline indexes timeseries.csv samples by strategy and series, and fixes the common time
// axis: every strategy is binned on the same bins so panels line up. Its work grows with the
// samples and the bins, never with the span of seconds between them.
type Timeline struct {
	// First and Last are the first and last second present in the samples.
	First, Last int
	// BinSeconds is the bin width; rates are per second, gauges the maximum within a bin.
	BinSeconds int
	series     map[string]map[string][]sample // strategy → series → samples by second
}

// sample is one second's value of a series.
type sample struct {
	second int
	value  float64
}

// NewTimeline indexes samples; maxBins caps the number of bins (values ≤ 0 mean one bin per
// second). Duplicate rows for one (strategy, series, second) are summed.
func NewTimeline(samples []results.Sample, maxBins int) *Timeline {
	t := &Timeline{First: math.MaxInt, Last: math.MinInt, BinSeconds: 1, series: map[string]map[string][]sample{}}
	sums := map[string]map[string]map[int]float64{}
	for _, s := range samples {
		byName := sums[s.Strategy]
		if byName == nil {
			byName = map[string]map[int]float64{}
			sums[s.Strategy] = byName
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
	for strategy, byName := range sums {
		t.series[strategy] = map[string][]sample{}
		for name, bySec := range byName {
			list := make([]sample, 0, len(bySec))
			for sec, v := range bySec {
				list = append(list, sample{sec, v})
			}
			sort.Slice(list, func(i, j int) bool { return list[i].second < list[j].second })
			t.series[strategy][name] = list
		}
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
	for name, list := range t.series[strategy] {
		op, ok := strings.CutPrefix(name, prefix+":")
		if !ok {
			continue
		}
		for _, s := range list {
			totals[op] += s.value
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

// bins is the number of bins.
func (t *Timeline) bins() int { return (t.Last-t.First)/t.BinSeconds + 1 }

// bin is the bin of a second.
func (t *Timeline) bin(second int) int { return (second - t.First) / t.BinSeconds }

// x is the plotted position of bin b: its middle (the second itself for 1-second bins).
func (t *Timeline) x(b int) float64 {
	return float64(t.First+b*t.BinSeconds) + float64(t.BinSeconds-1)/2
}

// Rate returns the per-second rate of a counter series (missing seconds count as zero): the bin's
// sum divided by the bin width. The sum of Y × BinSeconds equals the series total.
func (t *Timeline) Rate(strategy string, series ...string) Points {
	totals := make([]float64, t.bins())
	for _, name := range series {
		for _, s := range t.series[strategy][name] {
			totals[t.bin(s.second)] += s.value
		}
	}
	pts := make(Points, len(totals))
	for b, total := range totals {
		pts[b] = Point{X: t.x(b), Y: total / float64(t.BinSeconds)}
	}
	return pts
}

// Gauge returns the maximum of a gauge series per bin. A second without a sample holds the last
// sampled value (zero before the first sample).
func (t *Timeline) Gauge(strategy, series string) Points {
	list := t.series[strategy][series]
	pts := make(Points, t.bins())
	last, next := 0.0, 0
	for b := range pts {
		peak := math.Inf(-1)
		if next == len(list) || list[next].second > t.First+b*t.BinSeconds {
			peak = last // the bin's first second holds the value before it
		}
		for ; next < len(list) && t.bin(list[next].second) == b; next++ {
			last = list[next].value
			peak = math.Max(peak, last)
		}
		pts[b] = Point{X: t.x(b), Y: peak}
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
