package stats

import (
	"math"
	"slices"
)

// Missing is the value of a run that never reached the event a metric measures (a restart that never
// reconciled, a change never applied): it ranks after every measured value, as such a run ranks after
// every run that got there. NaN counts as missing too.
var Missing = math.Inf(1)

// sorted is a sorted copy of values with every missing value as Missing.
func sorted(values []float64) []float64 {
	s := make([]float64, len(values))
	for i, v := range values {
		if math.IsNaN(v) {
			v = Missing
		}
		s[i] = v
	}
	slices.Sort(s)
	return s
}

// Median is the middle value of values, or the mean of the two middle ones for an even count; NaN for
// none. Missing values rank after every measured one, so the median is Missing (+Inf) once at least
// half the values are missing: a side whose runs mostly never got there is not judged by the few
// that did.
func Median(values []float64) float64 {
	s := sorted(values)
	n := len(s)
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return s[n/2]
	case math.IsInf(s[n/2], 1): // the mean would be +Inf as well; this also keeps -Inf + +Inf from NaN
		return Missing
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Quantile is the nearest-rank p-quantile of values (0 < p ≤ 1): the smallest value with at least a
// share p of the values at or below it, always one of the values, never interpolated; NaN for none.
// Missing values rank last, as in Median.
func Quantile(values []float64, p float64) float64 {
	s := sorted(values)
	if len(s) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}
