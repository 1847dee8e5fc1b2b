package gate

import (
	"math"
	"testing"

	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/results"
)

func TestPairwiseIntervalKnownSamples(t *testing.T) {
	// 8 + 8 runs: the 95 % interval lies between the 14th smallest and the 14th largest of the 64
	// pairwise differences (the exact Mann–Whitney critical value at 8 + 8 is 13).
	base := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	cand := []float64{11, 12, 13, 14, 15, 16, 17, 18}
	iv := pairwiseInterval(base, cand, diff)
	if iv.Center != 10 || iv.Lo != 7 || iv.Hi != 13 {
		t.Errorf("shift of 1..8 to 11..18 = %+v, want 10 in [7, 13]", iv)
	}
	// Identical samples: no shift, an interval around it.
	iv = pairwiseInterval(base, base, ratio)
	if iv.Center != 1 || !(iv.Lo < 1 && iv.Hi > 1) || !near(iv.Lo*iv.Hi, 1) {
		t.Errorf("A/A ratio %+v, want 1 inside an interval symmetric in log", iv)
	}
	// Too few runs for a 95 % interval: the whole range.
	iv = pairwiseInterval([]float64{1, 2}, []float64{3, 4}, diff)
	if iv.Lo != 1 || iv.Hi != 3 {
		t.Errorf("2 + 2 runs: %+v, want the range of the differences [1, 3]", iv)
	}
	if iv := pairwiseInterval(nil, base, diff); !math.IsNaN(iv.Center) {
		t.Errorf("an empty side: %+v, want NaN", iv)
	}
}

func TestPairwiseIntervalMissingRuns(t *testing.T) {
	// A run that never reached the event is +Inf: it ranks after every other run, and two
	// missing runs are no shift.
	inf := math.Inf(1)
	iv := pairwiseInterval([]float64{1, 1, 1, inf}, []float64{1, 1, inf, inf}, ratio)
	if iv.Center != 1 || iv.Hi != inf || math.IsNaN(iv.Lo) {
		t.Errorf("missing runs: %+v, want a centre of 1 and an upper end of +Inf", iv)
	}
}

// A latency that moves in 100 ms steps: each side's runs split between two steps. Resampled, the
// ratio of medians jumps between the steps; the pairwise estimate of the same runs stays near 1.
func TestShiftSteadierThanRatioOfMediansOnSteppedLatency(t *testing.T) {
	step := func(low, high int) []float64 {
		var s []float64
		for range low {
			s = append(s, 0.42)
		}
		for range high {
			s = append(s, 0.52)
		}
		return s
	}
	// Seven of sixteen runs on the higher step in the baseline, nine in the candidate: the medians
	// fall on different steps (×1.24), though the samples differ by two runs.
	base, cand := step(9, 7), step(7, 9)
	if r := ratio(stats.Median(base), stats.Median(cand)); !near(r, 0.52/0.42) {
		t.Fatalf("ratio of medians %v, want the step ×%v", r, 0.52/0.42)
	}
	iv := pairwiseInterval(base, cand, ratio)
	if iv.Center != 1 || iv.Hi > 0.52/0.42+1e-9 || iv.Lo < 0.42/0.52-1e-9 {
		t.Errorf("pairwise ratio %+v, want 1 within one step either way", iv)
	}
}

// Counts tie in most pairs: the shift's estimate is 0, and the medians tell which way a rejection
// went. A candidate whose median is higher is never called an improvement.
func TestTiedShiftTakesTheMediansDirection(t *testing.T) {
	c := ABCheck{
		Metric: results.ABMetric{Metric: "aws_calls_total", MinEffect: 0.2}, RejectedAt: 0, P: 0.001, Level: 0.01,
		BaselineMedian: Interval{Center: 5}, CandidateMedian: Interval{Center: 6},
		Ratio: Interval{Center: 1, Lo: 1, Hi: 1.4}, Diff: Interval{Center: 0, Lo: 0, Hi: 2},
	}
	judgeAB(&c, 16)
	if c.Verdict == Improved || c.Verdict == Pass {
		t.Fatalf("verdict %s (%s), want a regression's or an undecided one", c.Verdict, c.Reason)
	}
}
