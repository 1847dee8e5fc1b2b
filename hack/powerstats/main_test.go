package main

import (
	"testing"

	"github.com/restartsim/restartsim/reports/results"
)

// The pool's TTFMR medians are the gate's: a run without a TTFMR ranks after every run with one, and an
// even count takes the mean of the middle two.
func TestTTFMRRatioTakesTheGatesMedian(t *testing.T) {
	s := func(v float64) results.Summary { return results.Summary{TTFMRSeconds: &v} }
	p := &pool{
		base: []results.Summary{s(1), s(2), s(3), s(4)},     // median 2.5
		cand: []results.Summary{s(2), s(3), {}, s(4), s(5)}, // 2, 3, 4, 5, missing: median 4
	}
	if got, want := p.ttfmrRatio(), 4/2.5; got != want {
		t.Fatalf("TTFMR ratio %v, want %v", got, want)
	}
}

func TestMedMax(t *testing.T) {
	if got := medMax([]float64{40, 10, 20, 30}, " s"); got != "25 s / 40 s" {
		t.Fatalf("medMax = %q, want the mean of the middle two and the maximum", got)
	}
	if got := medMax(nil, ""); got != "-" {
		t.Fatalf("medMax of nothing = %q", got)
	}
}
