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

func TestCensoredStatistics(t *testing.T) {
	m, b := func(v float64) Value { return Value{V: v} }, func(v float64) Value { return Value{V: v, Censored: true} }
	for _, tc := range []struct {
		name     string
		values   []Value
		p50      float64
		p50Lower bool
		p95      float64
		p95Lower bool
	}{
		{name: "none censored: the plain statistics", values: []Value{m(3), m(1), m(2)}, p50: 2, p95: 3},
		{name: "4 applied, 4 never (bounds at the run's end): median and p95 are bounds",
			values: []Value{m(20), m(30), m(31.5), m(40), b(900), b(900), b(880), b(890)}, p50: 40 + (880-40)/2.0, p50Lower: true, p95: 900, p95Lower: true},
		{name: "one never among many: the median stays exact, p95 is its bound",
			values: []Value{m(1), m(2), m(3), m(4), b(100)}, p50: 3, p95: 100, p95Lower: true},
		{name: "a bound below the median makes it a bound", values: []Value{m(10), m(20), b(5)}, p50: 10, p50Lower: true, p95: 20, p95Lower: true},
		{name: "a bound equal to the median ranks after it", values: []Value{m(1), b(2), m(2)}, p50: 2, p95: 2, p95Lower: true},
		{name: "even count: the mean of the middle two, a bound if either is", values: []Value{m(1), m(2), b(3), b(4)}, p50: 2.5, p50Lower: true, p95: 4, p95Lower: true},
	} {
		if got, lower := CensoredMedian(tc.values); got != tc.p50 || lower != tc.p50Lower {
			t.Errorf("%s: CensoredMedian = %v (lower %v), want %v (lower %v)", tc.name, got, lower, tc.p50, tc.p50Lower)
		}
		if got, lower := CensoredQuantile(tc.values, 0.95); got != tc.p95 || lower != tc.p95Lower {
			t.Errorf("%s: CensoredQuantile(0.95) = %v (lower %v), want %v (lower %v)", tc.name, got, lower, tc.p95, tc.p95Lower)
		}
	}
	if q, lower := CensoredQuantile(nil, 0.5); !math.IsNaN(q) || lower {
		t.Errorf("no values: %v %v, want NaN, not a bound", q, lower)
	}
}
