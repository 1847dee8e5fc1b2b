package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

// The noise study (-noise): per pool and A/B metric, whether pairing the runs of one round or a
// covariate the harness records would narrow what the gate judges. A round's baseline and
// candidate run are neighbours in the A B B A order, so a machine that drifts slowly raises both:
// their pair correlation says how much a paired test would gain; the interval columns say what it
// gains at the pool's size (the gate's unpaired interval beside the paired one). A covariate's
// rank correlation with the metric says how much of its spread it could explain.

// covariates are the per-run machine figures the harness records, by the name the table gives them.
var covariates = []struct {
	name string
	of   func(results.Summary) (float64, bool)
}{
	{"load1 at start", func(s results.Summary) (float64, bool) {
		return machine(s, func(m *results.Machine) float64 { return m.Load1Start })
	}},
	{"sched delay p99", func(s results.Summary) (float64, bool) {
		return machine(s, func(m *results.Machine) float64 { return m.SchedDelay.P99 })
	}},
	{"other CPU", func(s results.Summary) (float64, bool) {
		return machine(s, func(m *results.Machine) float64 { return m.OtherCPUFraction })
	}},
	{"iowait", func(s results.Summary) (float64, bool) {
		return machine(s, func(m *results.Machine) float64 { return m.IOWaitFraction })
	}},
}

func machine(s results.Summary, f func(*results.Machine) float64) (float64, bool) {
	if s.Machine == nil {
		return 0, false
	}
	return f(s.Machine), true
}

// printNoise prints the noise table of one condition's pools (each pool's runs in their rounds).
func printNoise(name string, files []string, ab *results.AB) {
	var base, cand []results.Summary
	for _, f := range files {
		r, err := results.Load(f)
		if err != nil || r.AB == nil {
			continue
		}
		b, _ := r.Strategy(r.AB.Baseline)
		c, _ := r.Strategy(r.AB.Candidate)
		n := min(len(b.Runs), len(c.Runs))
		base, cand = append(base, b.Runs[:n]...), append(cand, c.Runs[:n]...)
	}
	for _, m := range ab.Metrics {
		xb, xc, ok := pairedSample(base, cand, m.Metric)
		if !ok {
			continue
		}
		r, _ := gate.Shift(sortedCopy(xb), sortedCopy(xc))
		p := pairedRatio(xb, xc)
		cols := []string{name, m.Metric, fmt.Sprint(len(xb)), ivText(r), ivText(p), rhoText(spearman(xb, xc))}
		for _, cv := range covariates {
			cols = append(cols, covariateRho(base, cand, m.Metric, cv.of))
		}
		fmt.Println("| " + strings.Join(cols, " | ") + " |")
	}
}

// noiseHeader is the noise table's header.
func noiseHeader() string {
	cols := []string{"condition", "metric", "rounds", "ratio interval, unpaired (the gate's)", "ratio interval, paired by round", "pair correlation"}
	for _, cv := range covariates {
		cols = append(cols, "ρ with "+cv.name)
	}
	return "| " + strings.Join(cols, " | ") + " |\n|" + strings.Repeat("---|", len(cols))
}

// pairedSample is the metric in the rounds where both runs measured it, finite and positive.
func pairedSample(base, cand []results.Summary, metric string) (xb, xc []float64, ok bool) {
	for i := range base {
		b, okb := base[i].Metrics()[metric]
		c, okc := cand[i].Metrics()[metric]
		if okb && okc && b > 0 && c > 0 && !math.IsInf(b, 0) && !math.IsInf(c, 0) {
			xb, xc = append(xb, b), append(xc, c)
		}
	}
	return xb, xc, len(xb) >= 4
}

func sortedCopy(v []float64) []float64 {
	out := slices.Clone(v)
	slices.Sort(out)
	return out
}

// pairedRatio is the Hodges–Lehmann ratio of paired runs (the median Walsh average of the log
// ratios, exponentiated) with the 95 % interval of the Wilcoxon signed-rank test (normal
// approximation).
func pairedRatio(xb, xc []float64) gate.Interval {
	n := len(xb)
	d := make([]float64, n)
	for i := range d {
		d[i] = math.Log(xc[i] / xb[i])
	}
	var w []float64
	for i := range d {
		for j := i; j < n; j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	nf := float64(n)
	k := int(math.Floor(nf*(nf+1)/4 - 1.959963984540054*math.Sqrt(nf*(nf+1)*(2*nf+1)/24)))
	k = max(0, min(k, (len(w)-1)/2))
	return gate.Interval{Center: math.Exp(w[len(w)/2]), Lo: math.Exp(w[k]), Hi: math.Exp(w[len(w)-1-k])}
}

func ivText(iv gate.Interval) string {
	return fmt.Sprintf("×%.3f [%.3f, %.3f] (width %.3f)", iv.Center, iv.Lo, iv.Hi, iv.Hi/iv.Lo)
}

// covariateRho is the rank correlation of a metric with a covariate over every run of both sides.
func covariateRho(base, cand []results.Summary, metric string, of func(results.Summary) (float64, bool)) string {
	var x, y []float64
	for _, s := range append(slices.Clone(base), cand...) {
		v, ok := s.Metrics()[metric]
		c, okc := of(s)
		if ok && okc && !math.IsInf(v, 0) {
			x, y = append(x, v), append(y, c)
		}
	}
	if len(x) < 4 {
		return "-"
	}
	return rhoText(spearman(x, y))
}

// rhoText prints a correlation, "-" where a sample had no spread.
func rhoText(r float64) string {
	if math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%+.2f", r)
}

// spearman is the rank correlation of x and y (ties take their mean rank); NaN without spread.
func spearman(x, y []float64) float64 {
	rx, ry := ranks(x), ranks(y)
	n := float64(len(x))
	mean := (n + 1) / 2
	var num, dx, dy float64
	for i := range rx {
		num += (rx[i] - mean) * (ry[i] - mean)
		dx += (rx[i] - mean) * (rx[i] - mean)
		dy += (ry[i] - mean) * (ry[i] - mean)
	}
	return num / math.Sqrt(dx*dy)
}

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	out := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			out[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return out
}
