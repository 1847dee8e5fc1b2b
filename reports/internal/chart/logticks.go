package chart

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks labels a log axis at 1, 2 and 5 of every decade (only 1 and 3 when it spans more than
// four decades), with unlabelled minor ticks at the other integers: plot.LogTicks labels powers
// of ten only, which leaves a one- or two-decade axis with two labels.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(lo) || !finite(hi) {
		return nil
	}
	if lo <= 0 || hi <= lo {
		return plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	}
	labelled := map[int]bool{1: true, 2: true, 5: true}
	if math.Log10(hi/lo) > 4 {
		labelled = map[int]bool{1: true, 3: true}
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		decade := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * decade
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled[m] {
				t.Label = strconv.FormatFloat(v, 'g', 6, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
