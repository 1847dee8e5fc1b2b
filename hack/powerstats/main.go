// Command powerstats estimates the A/B gate's catch and false-alarm rates from the runs of a power
// study (hack/power-study.sh): per condition it pools every gate run's per-run summaries of each
// side and judges many gate runs drawn from the pools (the gate's repeat count per side, without
// replacement), with the gate's own statistics. The pooled estimate supplements the verdicts of
// the real gate runs, which are independent but few; those are judged again here with this
// build's gate, so that a change of its statistics is measured on the same runs.
//
//	go run ./hack/powerstats -dir out/power -draws 2000 [-n 6] [-ttfmr-weight 1]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/reports/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

func main() {
	dir := flag.String("dir", "out/power", "power study output (one folder per condition)")
	draws := flag.Int("draws", 2000, "gate runs drawn per condition")
	perSide := flag.Int("n", 0, "runs per side of a drawn gate run (default: the study's ab.repeats)")
	weight := flag.Float64("ttfmr-weight", scenario.DefaultABTTFMRWeight, "TTFMR's weight in the weighted Holm correction (1: equal weights)")
	perRun := flag.Bool("runs", false, "also print every gate run's TTFMR check as judged by this build")
	flag.Parse()
	conds, err := os.ReadDir(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("condition\tgate runs\tfailing on TTFMR / on any A/B check\tpooled runs per side\tTTFMR ratio of pooled medians\tdrawn runs failing on TTFMR\tdrawn runs failing on any A/B check")
	for _, c := range conds {
		if !c.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(*dir, c.Name(), "*", "run", "*", "*", "results.json"))
		if len(files) == 0 {
			continue
		}
		pooled, n := pool(files, *weight)
		if *perSide > 0 {
			n = *perSide
		}
		runT, runAny := rejudge(files, *weight, *perRun)
		ttfmr, any := estimate(pooled, n, *draws)
		fmt.Printf("%s\t%d\t%d / %d\t%d+%d\t%.2f\t%.3f\t%.3f\n", c.Name(), len(files), runT, runAny,
			len(side(pooled, pooled.AB.Baseline)), len(side(pooled, pooled.AB.Candidate)), medianRatio(pooled), ttfmr, any)
	}
}

// load reads a gate run's results with TTFMR weighted as given.
func load(f string, weight float64) (*results.Results, bool) {
	r, err := results.Load(f)
	if err != nil || r.AB == nil {
		fmt.Fprintf(os.Stderr, "skipping %s: %v\n", f, err)
		return nil, false
	}
	for i := range r.AB.Metrics {
		if r.AB.Metrics[i].Metric == results.MetricTTFMR {
			r.AB.Metrics[i].Weight = weight
		}
	}
	return r, true
}

// rejudge counts the gate runs that fail on TTFMR and on any A/B check, judged by this build;
// verbose prints each run's TTFMR check to stderr.
func rejudge(files []string, weight float64, verbose bool) (ttfmr, any int) {
	for _, f := range files {
		r, ok := load(f, weight)
		if !ok {
			continue
		}
		t, a := fails(r)
		ttfmr, any = ttfmr+b2i(t), any+b2i(a)
		if verbose {
			out, _ := gate.EvaluateAB(r)
			for _, c := range out.Checks {
				if c.Metric.Metric == results.MetricTTFMR {
					fmt.Fprintf(os.Stderr, "%s\t×%.3g\tp %.2g\t%s\tany check failed: %v\n", f, c.Ratio.Center, c.P, c.Verdict, a)
				}
			}
		}
	}
	return ttfmr, any
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fails judges one gate run's A/B comparison: whether TTFMR, and whether any check, failed.
func fails(r *results.Results) (ttfmr, any bool) {
	out, err := gate.EvaluateAB(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, c := range out.Checks {
		if c.Verdict == gate.Fail {
			any = true
			ttfmr = ttfmr || c.Metric.Metric == results.MetricTTFMR
		}
	}
	return ttfmr, any
}

// pool merges the runs of both sides of every results file into one results; n is the gate's
// repeat count per side.
func pool(files []string, weight float64) (*results.Results, int) {
	var out *results.Results
	for _, f := range files {
		r, ok := load(f, weight)
		if !ok {
			continue
		}
		if out == nil {
			out = r
			continue
		}
		for _, name := range []string{r.AB.Baseline, r.AB.Candidate} {
			s, _ := r.Strategy(name)
			dst, _ := out.Strategy(name)
			dst.Runs = append(dst.Runs, s.Runs...)
		}
	}
	return out, out.AB.Repeats
}

func side(r *results.Results, name string) []results.Summary {
	s, _ := r.Strategy(name)
	return s.Runs
}

// estimate draws gate runs of n runs per side from the pool and returns the fraction failing on
// TTFMR and on any A/B check.
func estimate(pooled *results.Results, n, draws int) (ttfmr, any float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	base, cand := side(pooled, pooled.AB.Baseline), side(pooled, pooled.AB.Candidate)
	var failT, failAny int
	for d := 0; d < draws; d++ {
		r := *pooled
		r.Strategies = []results.Strategy{
			{Name: pooled.AB.Baseline, Runs: pick(rng, base, n)},
			{Name: pooled.AB.Candidate, Runs: pick(rng, cand, n)},
		}
		t, a := fails(&r)
		failT, failAny = failT+b2i(t), failAny+b2i(a)
	}
	return float64(failT) / float64(draws), float64(failAny) / float64(draws)
}

func pick(rng *rand.Rand, from []results.Summary, n int) []results.Summary {
	idx := rng.Perm(len(from))[:min(n, len(from))]
	out := make([]results.Summary, len(idx))
	for i, j := range idx {
		out[i] = from[j]
	}
	return out
}

func medianRatio(r *results.Results) float64 {
	med := func(runs []results.Summary) float64 {
		var v []float64
		for _, s := range runs {
			if s.TTFMRSeconds != nil {
				v = append(v, *s.TTFMRSeconds)
			}
		}
		if len(v) == 0 {
			return 0
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	b := med(side(r, r.AB.Baseline))
	if b == 0 {
		return 0
	}
	return med(side(r, r.AB.Candidate)) / b
}
