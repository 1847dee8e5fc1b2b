package gate

import (
	"math"
	"sync"

	"github.com/restartsim/restartsim/results"
)

// Sequential A/B sampling: the gate looks at the two samples after the first runs and after every
// further block, and may stop at any look. Looking repeatedly at a fixed-level test would raise its
// false-alarm rate with every look, so each look tests at a nominal level from a group-sequential
// boundary (Lan & DeMets 1983): the family-wise alpha is spent over the information fractions
// t = runs per side ÷ the planned maximum, and look k's boundary c_k is the one at which a
// Brownian motion under the null crosses first at look k with probability α(t_k) − α(t_{k−1}).
// The Mann–Whitney statistic of n + n runs is, standardised, asymptotically such a process with
// information ∝ n, so the boundaries hold for it as nominal p-value levels; the boundaries of past
// looks never depend on future ones, so stopping early, for any reason, only spends less alpha.

// Schedule is the plan of looks: the first after Initial runs per side, then every Block runs, up
// to Max runs per side (the last block may be shorter).
type Schedule struct{ Initial, Block, Max int }

// Runs is the number of runs per side at look k (0-based), capped at Max.
func (s Schedule) Runs(k int) int {
	n := s.Initial + k*max(s.Block, 1)
	return min(n, max(s.Max, s.Initial))
}

// Looks is the number of looks in the full plan.
func (s Schedule) Looks() int {
	if s.Block <= 0 || s.Max <= s.Initial {
		return 1
	}
	return 1 + (s.Max-s.Initial+s.Block-1)/s.Block
}

// fractions are the information fractions of the plan's looks.
func (s Schedule) fractions() []float64 {
	out := make([]float64, s.Looks())
	total := float64(s.Runs(len(out) - 1))
	for k := range out {
		out[k] = float64(s.Runs(k)) / total
	}
	return out
}

// spent is the Lan–DeMets Pocock-type spending function: the share of alpha spent by
// information fraction t. It spends early (about a third of alpha at t = ¼), so that a clear
// regression stops the run at its first looks; the price is a final level below alpha.
func spent(alpha, t float64) float64 {
	if t >= 1 {
		return alpha
	}
	return alpha * math.Log(1+(math.E-1)*t)
}

// gridPoints discretises the continuation region in the boundary recursion; the densities are
// smooth, so the trapezoid rule on 301 points is exact to well under 1 % of each look's alpha.
const gridPoints = 301

// nominalLevels are the two-sided nominal p-value levels of looks at the information fractions
// fracs (increasing, the last ≤ 1) for a family-wise two-sided alpha: a p-value at look k at or
// below levels[k] crosses the boundary. Computed by the recursive numerical integration of
// Armitage, McPherson and Rowe (1969) over the continuation region.
func nominalLevels(alpha float64, fracs []float64) []float64 {
	levels := make([]float64, len(fracs))
	var xs, dens []float64 // the sub-density of the un-stopped process at the previous look
	prevSpent, prevT := 0.0, 0.0
	for k, t := range fracs {
		target := spent(alpha, t) - prevSpent
		prevSpent = spent(alpha, t)
		sd := math.Sqrt(t - prevT)
		exit := func(c float64) float64 {
			b := c * math.Sqrt(t)
			if k == 0 {
				return 2 * normSF(c)
			}
			return trapezoid(xs, func(i int) float64 {
				return dens[i] * (normSF((b-xs[i])/sd) + normSF((b+xs[i])/sd))
			})
		}
		c := math.Inf(1)
		if target > 0 {
			lo, hi := 0.0, 40.0
			for range 50 { // to 40 × 2⁻⁵⁰: far below the integration's error
				mid := (lo + hi) / 2
				if exit(mid) > target {
					lo = mid
				} else {
					hi = mid
				}
			}
			c = hi
		}
		levels[k] = 2 * normSF(c)
		if math.IsInf(c, 1) {
			c = 40 // nothing stops here; keep the region finite
		}
		b := c * math.Sqrt(t)
		ys := make([]float64, gridPoints)
		next := make([]float64, gridPoints)
		for i := range ys {
			ys[i] = -b + 2*b*float64(i)/float64(gridPoints-1)
			if k == 0 {
				next[i] = normPDF(ys[i]/sd) / sd
				continue
			}
			y := ys[i]
			next[i] = trapezoid(xs, func(j int) float64 { return dens[j] * normPDF((y-xs[j])/sd) / sd })
		}
		xs, dens, prevT = ys, next, t
	}
	return levels
}

func trapezoid(xs []float64, f func(i int) float64) float64 {
	s := 0.0
	for i := 1; i < len(xs); i++ {
		s += (f(i-1) + f(i)) / 2 * (xs[i] - xs[i-1])
	}
	return s
}

func normPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }

// normSF is the standard normal's upper tail, P(Z > x).
func normSF(x float64) float64 { return math.Erfc(x/math.Sqrt2) / 2 }

type levelsKey struct {
	alpha float64
	plan  Schedule
}

// levelsCache memoises nominalLevels: a gate run needs a handful of distinct alphas (one per
// weighted-Holm share), a power study's replay the same ones many times.
var levelsCache sync.Map

// planLevels are the nominal levels of every look of plan at a two-sided alpha.
func planLevels(alpha float64, plan Schedule) []float64 {
	key := levelsKey{alpha, plan}
	if v, ok := levelsCache.Load(key); ok {
		return v.([]float64)
	}
	v := nominalLevels(alpha, plan.fractions())
	levelsCache.Store(key, v)
	return v
}

// sequentialHolm is the weighted Holm procedure over group-sequential tests (Maurer & Bretz
// 2013): each hypothesis not yet rejected is tested at every look so far against the boundary
// for its share of alpha, alpha × its weight ÷ the weights not yet rejected; a rejection passes
// its share on and the others are tested again, at every look, until none is added. p[i][k] is
// hypothesis i's p-value at look k (NaN: not tested). It returns, per hypothesis, the look it
// was rejected at (−1: not rejected) and its current level at the last look.
func sequentialHolm(p [][]float64, weights []float64, alpha float64, plan Schedule) (rejectedAt []int, level []float64) {
	rejectedAt = make([]int, len(p))
	level = make([]float64, len(p))
	for i := range rejectedAt {
		rejectedAt[i] = -1
	}
	for changed := true; changed; {
		changed = false
		left := 0.0
		for i := range p {
			if rejectedAt[i] < 0 && len(p[i]) > 0 {
				left += weights[i]
			}
		}
		for i := range p {
			if rejectedAt[i] >= 0 || len(p[i]) == 0 {
				continue
			}
			lv := planLevels(alpha*weights[i]/left, plan)
			level[i] = lv[min(len(p[i]), len(lv))-1]
			for k, pk := range p[i] {
				if k < len(lv) && pk <= lv[k] {
					rejectedAt[i], changed = k, true
					break
				}
			}
		}
	}
	return rejectedAt, level
}

// Sequence runs the sequential rule over runs supplied one round (a run per side) at a time by
// next, as the simulation does: the first look after plan.Initial rounds, then one every Block,
// until a look's verdict is not inconclusive, the plan ends, a pass is out of reach
// (ABOutcome.PassOutOfReach), or more is not wanted (more reports whether another block fits,
// given the look just taken). It returns the last look's outcome.
func Sequence(ab *results.AB, next func(round int) (base, cand results.Summary), more func(*ABOutcome) bool, o ABOptions) (*ABOutcome, error) {
	plan := ABPlan(ab)
	var base, cand []results.Summary
	for k := 0; ; k++ {
		for len(base) < plan.Runs(k) {
			b, c := next(len(base))
			base, cand = append(base, b), append(cand, c)
		}
		last := k == plan.Looks()-1
		out, err := JudgeAB(ab, base, cand, o)
		if err != nil || out.Verdict != Inconclusive || last || out.PassOutOfReach() || !more(out) {
			return out, err
		}
	}
}
