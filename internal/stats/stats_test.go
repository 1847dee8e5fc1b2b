package stats

import (
	"math"
	"testing"
)

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestMedian(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name   string
		values []float64
		want   float64
	}{
		{"none", nil, nan},
		{"one", []float64{3}, 3},
		{"odd, unsorted", []float64{5, 1, 3}, 3},
		{"even: the mean of the middle two", []float64{4, 1, 2, 3}, 2.5},
		{"a missing run ranks last", []float64{1, 2, Missing}, 2},
		{"NaN is missing", []float64{1, nan, 2}, 2},
		{"even, one missing: shifted up, still finite", []float64{1, 2, 3, Missing}, 2.5},
		{"even, half missing", []float64{1, 2, Missing, Missing}, inf},
		{"odd, most missing", []float64{1, Missing, Missing}, inf},
		{"all missing", []float64{Missing, Missing}, inf},
		{"a -Inf beside +Inf in the middle", []float64{math.Inf(-1), Missing}, inf},
	} {
		if got := Median(tc.values); !same(got, tc.want) {
			t.Errorf("%s: Median(%v) = %v, want %v", tc.name, tc.values, got, tc.want)
		}
	}
}

func TestMedianLeavesItsInputAlone(t *testing.T) {
	v := []float64{3, math.NaN(), 1}
	Median(v)
	if v[0] != 3 || !math.IsNaN(v[1]) || v[2] != 1 {
		t.Fatalf("Median changed its input: %v", v)
	}
}

func TestQuantileNearestRank(t *testing.T) {
	ten := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	for _, tc := range []struct {
		values []float64
		p      float64
		want   float64
	}{
		{ten, 0.5, 5}, {ten, 0.95, 10}, {ten, 0.9, 9}, {ten, 0.1, 1}, {ten, 0.01, 1}, {ten, 1, 10},
		{[]float64{1, 2, 3}, 0.5, 2}, {[]float64{7}, 0.99, 7},
		{[]float64{1, Missing}, 0.99, math.Inf(1)},
		{nil, 0.5, math.NaN()},
	} {
		if got := Quantile(tc.values, tc.p); !same(got, tc.want) {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tc.values, tc.p, got, tc.want)
		}
	}
}
