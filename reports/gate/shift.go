package gate

import (
	"math"
	"slices"
)

// z975 is the standard normal's 97.5 % quantile: the two-sided 95 % intervals.
const z975 = 1.959963984540054

// shiftIntervals are the candidate's shift from the baseline as a ratio and as a difference: each
// the Hodges–Lehmann estimate (the median of every candidate-run-over-baseline-run pairwise ratio,
// or difference) with the distribution-free 95 % interval that inverts the Mann–Whitney test the
// gate applies (Moses), so that the interval and the test agree.
//
// A restart's latency is not a smooth distribution: it moves in steps of the poll periods a
// controller waits on (client-go checks a cache's sync every 100 ms), so a side's median jumps
// between two steps from one run to the next. The pairwise estimate uses every run of both sides
// and does not jump; a ratio of medians, and a bootstrap of it, do.
func shiftIntervals(base, cand []float64) (ratioIv, diffIv Interval) {
	return pairwiseInterval(base, cand, ratio), pairwiseInterval(base, cand, diff)
}

// pairwiseInterval is the median of f(b, c) over every pair of a baseline and a candidate value,
// with the interval between the order statistics the Mann–Whitney distribution's 2.5 % and 97.5 %
// points select (its normal approximation; at 8 + 8 runs it selects the same order statistics as the
// exact distribution). Samples too small for a 95 % interval get the whole range.
func pairwiseInterval(base, cand []float64, f func(b, c float64) float64) Interval {
	m, n := len(base), len(cand)
	if m == 0 || n == 0 {
		return Interval{Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	d := make([]float64, 0, m*n)
	for _, b := range base {
		for _, c := range cand {
			d = append(d, f(b, c))
		}
	}
	slices.Sort(d)
	total := len(d)
	center := d[total/2]
	if total%2 == 0 {
		center = midpoint(d[total/2-1], d[total/2])
	}
	k := int(math.Floor(float64(total)/2 - z975*math.Sqrt(float64(m*n*(m+n+1))/12)))
	k = max(0, min(k, (total-1)/2))
	return Interval{Center: center, Lo: d[k], Hi: d[total-1-k]}
}

// midpoint is the mean of two neighbouring order statistics, defined for infinite ones.
func midpoint(a, b float64) float64 {
	if a == b || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.Max(a, b)
	}
	return (a + b) / 2
}

// Shift is the candidate's shift from the baseline as the gate estimates it: the Hodges–Lehmann
// ratio and difference with the 95 % intervals of its Mann–Whitney test (for studies of the gate).
func Shift(base, cand []float64) (ratioIv, diffIv Interval) { return shiftIntervals(base, cand) }
