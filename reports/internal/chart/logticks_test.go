package chart

import (
	"math"
	"testing"
)

// A one-decade axis gets labels at 1, 2 and 5 of each decade, not only at the powers of ten.
func TestLogTicksLabelEveryDecadeStep(t *testing.T) {
	var labels []string
	for _, tk := range (logTicks{}).Ticks(0.3, 20) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	want := []string{"0.5", "1", "2", "5", "10", "20"}
	if len(labels) != len(want) {
		t.Fatalf("labels %v, want %v", labels, want)
	}
	for i := range want {
		if labels[i] != want[i] {
			t.Fatalf("labels %v, want %v", labels, want)
		}
	}
}

// Any finite range gets a bounded number of time ticks, however far its values are from zero:
// adding a step to 1e300 leaves it as it was, which once kept the loop from ever ending.
func TestTimeTicksEndForAnyFiniteRange(t *testing.T) {
	for _, r := range [][2]float64{{0, 600}, {-5, 5}, {0, 1e300}, {1e300, 1e300}, {1e300, 1.0000001e300},
		{-math.MaxFloat64, math.MaxFloat64}, {0, 30 * 86400}, {math.Inf(-1), 0}, {math.NaN(), 1}, {5, 1}} {
		ticks := (timeTicks{}).Ticks(r[0], r[1])
		if len(ticks) > 2*maxTimeTicks+2 {
			t.Errorf("%v: %d ticks", r, len(ticks))
		}
		labelled := 0
		for _, tk := range ticks {
			if tk.Value < r[0] || tk.Value > r[1] {
				t.Errorf("%v: tick %g outside the range", r, tk.Value)
			}
			if tk.Label != "" {
				labelled++
			}
		}
		if finite(r[1]-r[0]) && r[1]-r[0] >= 600 && labelled < 2 {
			t.Errorf("%v: %d labelled ticks, want at least 2", r, labelled)
		}
	}
	if got := (timeTicks{}).Ticks(0, 60); len(got) == 0 || got[0].Label != "0" || got[len(got)-1].Value > 60 {
		t.Errorf("0–60 s: %v", got)
	}
}
