package main

import (
	"math"
	"testing"
)

func TestSpearman(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"monotone", []float64{1, 2, 3, 4}, []float64{10, 20, 25, 90}, 1},
		{"reversed", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// Ranks 1..4 against 2, 1, 4, 3: Σd² = 4, ρ = 1 − 6·4/(4·15) = 0.6.
		{"two swaps", []float64{1, 2, 3, 4}, []float64{2, 1, 4, 3}, 0.6},
	} {
		if got := spearman(tc.x, tc.y); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: ρ = %g, want %g", tc.name, got, tc.want)
		}
	}
	if got := spearman([]float64{1, 2, 3}, []float64{5, 5, 5}); !math.IsNaN(got) {
		t.Errorf("no spread: ρ = %g, want NaN", got)
	}
}

func TestRanksTies(t *testing.T) {
	got := ranks([]float64{3, 1, 3, 2})
	want := []float64{3.5, 1, 3.5, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ranks = %v, want %v", got, want)
		}
	}
}

// Every candidate run twice its round's baseline run: the paired ratio is exactly 2, its interval
// too, however much the rounds differ from each other; and the interval covers the ratio of
// pairs that scatter around it.
func TestPairedRatio(t *testing.T) {
	base := []float64{1, 3, 1.5, 7, 2, 5, 1.2, 4}
	cand := make([]float64, len(base))
	for i, b := range base {
		cand[i] = 2 * b
	}
	if iv := pairedRatio(base, cand); math.Abs(iv.Center-2) > 1e-9 || math.Abs(iv.Lo-2) > 1e-9 || math.Abs(iv.Hi-2) > 1e-9 {
		t.Errorf("constant ×2: %+v, want ×2 [2, 2]", iv)
	}
	scatter := []float64{1.9, 2.1, 2.05, 1.95, 2.2, 1.8, 2, 2.02}
	for i, b := range base {
		cand[i] = scatter[i] * b
	}
	if iv := pairedRatio(base, cand); iv.Lo > 2 || iv.Hi < 2 || iv.Lo < 1.8 || iv.Hi > 2.2 {
		t.Errorf("×2 with scatter: %+v, want an interval around 2 within the scatter", iv)
	}
}
