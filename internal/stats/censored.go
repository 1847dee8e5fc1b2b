package stats

import (
	"math"
	"slices"
)

// Value is a measured value, or only a lower bound of one (Censored): a change never applied
// within a run has waited at least until the run's end.
type Value struct {
	V        float64
	Censored bool
}

// sortedValues is a sorted copy of values; at equal V a measured value comes first, so a bound
// equal to the statistic does not make it a bound.
func sortedValues(values []Value) []Value {
	s := slices.Clone(values)
	slices.SortStableFunc(s, func(a, b Value) int {
		switch {
		case a.V < b.V:
			return -1
		case a.V > b.V:
			return 1
		case a.Censored == b.Censored:
			return 0
		case b.Censored:
			return -1
		}
		return 1
	})
	return s
}

// censoredUpTo reports whether a bound is among the first i+1 of sorted s.
func censoredUpTo(s []Value, i int) bool {
	return slices.ContainsFunc(s[:i+1], func(v Value) bool { return v.Censored })
}

// CensoredMedian is Median of values with each bound standing for its value. As a true value is
// at least its bound, the result is a lower bound of the true median; lower is true when it is
// only that (a bound ranks at or below the middle), false when it is exact. NaN for none.
func CensoredMedian(values []Value) (m float64, lower bool) {
	s := sortedValues(values)
	n := len(s)
	switch {
	case n == 0:
		return math.NaN(), false
	case n%2 == 1:
		return s[n/2].V, censoredUpTo(s, n/2)
	}
	return (s[n/2-1].V + s[n/2].V) / 2, censoredUpTo(s, n/2)
}

// CensoredQuantile is Quantile of values with each bound standing for its value: a lower bound of
// the true nearest-rank p-quantile, exact unless lower (a bound ranks at or below it). NaN for none.
func CensoredQuantile(values []Value, p float64) (q float64, lower bool) {
	s := sortedValues(values)
	if len(s) == 0 {
		return math.NaN(), false
	}
	i := max(0, min(int(math.Ceil(p*float64(len(s))))-1, len(s)-1))
	return s[i].V, censoredUpTo(s, i)
}
