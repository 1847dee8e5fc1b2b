package main

import (
	"path/filepath"
	"testing"

	"github.com/restartsim/restartsim/results"
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

// Disjoint gate runs never share a run: a pool of 10 + 10 runs holds two gate runs of one look at
// 4 + 4, and an A/A pool's union of 10 holds one; a candidate three times slower fails both.
func TestDisjointGateRunsShareNoRun(t *testing.T) {
	ab := &results.AB{Repeats: 4, MaxRepeats: 4, Alpha: 0.05,
		Metrics: []results.ABMetric{{Metric: "ttfmr_seconds", MinEffect: 0.2}}}
	runs := func(n int, scale float64) ([]results.Summary, []float64) {
		var s []results.Summary
		var secs []float64
		for i := range n {
			v := scale * (10 + float64(i%5)/10)
			s = append(s, results.Summary{TTFMRSeconds: &v})
			secs = append(secs, 1)
		}
		return s, secs
	}
	p := &pool{}
	p.base, p.baseSecs = runs(10, 1)
	p.cand, p.candSecs = runs(10, 3)
	d := disjoint(ab, p, false)
	if got := d.counts(); got != "2 / 0 / 0 of 2" {
		t.Fatalf("disjoint gate runs of 10 + 10 at 4 + 4: %s, want two fails", got)
	}
	if d.perSide[0] != 4 || d.perSide[1] != 4 {
		t.Fatalf("runs per side %v, want 4 and 4", d.perSide)
	}

	aa := &pool{aa: true}
	aa.base, aa.baseSecs = runs(10, 1)
	aa.cand, aa.candSecs = aa.base, aa.baseSecs
	if got := disjoint(ab, aa, false).counts(); got != "0 / 0 / 1 of 1" && got != "0 / 1 / 0 of 1" {
		t.Fatalf("disjoint gate runs of an A/A union of 10 at 4 + 4: %s, want one that does not fail", got)
	}
}

// Pools of one condition join; swap exchanges their sides, and an A/A pool cannot join one of two
// builds.
func TestLoadPoolsJoinsAndSwaps(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, baseBuild, candBuild string, base, cand float64) string {
		b, c := base, cand
		r := results.Results{
			Scenario: results.Scenario{Name: "x", FleetSetupSeconds: 2},
			Strategies: []results.Strategy{
				{Name: "x-baseline", Runs: []results.Summary{{TTFMRSeconds: &b}}},
				{Name: "x", Runs: []results.Summary{{TTFMRSeconds: &c}}},
			},
			AB: &results.AB{Baseline: "x-baseline", Candidate: "x", Order: []string{"x-baseline", "x"},
				RunSeconds:    []float64{1, 1},
				BaselineBuild: results.Build{SHA256: baseBuild}, CandidateBuild: results.Build{SHA256: candBuild}},
		}
		f := filepath.Join(dir, name+".json")
		if err := r.Save(f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	one, two := write("one", "a", "b", 1, 3), write("two", "a", "b", 2, 4)
	p, err := loadPools([]string{one, two}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.base) != 2 || *p.base[0].TTFMRSeconds != 3 || *p.cand[1].TTFMRSeconds != 2 || p.setup != 2 {
		t.Fatalf("joined, swapped pool: base %v cand %v setup %v", p.base, p.cand, p.setup)
	}
	aa := write("aa", "a", "a", 1, 1)
	if _, err := loadPools([]string{one, aa}, false); err == nil {
		t.Fatal("an A/A pool joined with a pool of two builds")
	}
}
