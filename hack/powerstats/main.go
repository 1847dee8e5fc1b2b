// Command powerstats estimates the sequential A/B gate's verdict rates from a power study
// (hack/power-study.sh). Per load and condition it reads the pool (one A/B run of N + N runs that
// never stopped early) and replays the gate on draws from it: each simulated gate run draws its
// runs with replacement from the pool's baseline and candidate runs, in rounds, and judges them
// with the gate's own sequential rule (gate.Sequence) and the plan of -scenario's ab section; its
// wall time is the pool's fleet set-up plus the drawn runs' own wall times, and a block starts only
// when it fits the budget as the simulation judges it. Resampled figures are estimates from the
// pool's runs, not independent gate runs. Beside them: the disjoint gate runs, one random partition
// of the pool's runs into gates that share no run (each as independent as a real gate run, and as
// few as the pool allows), and the real end-to-end gate runs (gates.tsv).
//
// A condition may hold several pools (pool, pool-2, ...: hack/power-study.sh POOL=2); they are
// joined. -swap judges each pool's baseline as the candidate: one pool of two builds gives both
// directions of a comparison. -pools 'gate-*' takes the real gate runs' runs as the pools instead:
// what each condition measured in the gates (its TTFMR ratio), and replays drawn from them.
//
// -record tables a record of real gate runs kept across studies (docs/power/gates.tsv).
//
//	go run ./hack/powerstats -dir out/power [-draws 1000] [-scenario scenarios/ci-gate.yaml] [-swap] [-pools 'gate-*'] [-record docs/power/gates.tsv [-by-build]]
package main

import (
	"bufio"
	"cmp"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

func main() {
	dir := flag.String("dir", "out/power", "power study output: <load>/<condition>/pool and gates.tsv")
	draws := flag.Int("draws", 1000, "simulated gate runs per cell")
	file := flag.String("scenario", "scenarios/ci-gate.yaml", "the gate's scenario, for its ab plan and metrics")
	saturation := flag.Bool("saturation", true, "hold passes back on runs of a saturated machine, as the gate does; false judges the runs as if the machine had been quiet")
	swap := flag.Bool("swap", false, "judge each pool's baseline as the candidate")
	record := flag.String("record", "", "a record of real gate runs (hack/power-study.sh RECORD=...), e.g. docs/power/gates.tsv: tabled by load and condition after the pools")
	pools := flag.String("pools", "pool*", "the directories of a condition whose runs are its pool; 'gate-*' takes the runs of its real gate runs (hack/power-study.sh gates)")
	byBuild := flag.Bool("by-build", false, "with -record: a row per build in each cell, for builds whose gates judge differently")
	noise := flag.Bool("noise", false, "instead of the replays: per metric, the gain of pairing each round's runs and the covariates' rank correlations (noise.go)")
	flag.Parse()
	defer func() {
		if *record != "" {
			if err := printRecordFile(*record, *byBuild); err != nil {
				fail(err)
			}
		}
	}()
	sc, err := scenario.Load(*file)
	if err != nil {
		fail(err)
	}
	ab := sc.ResultsAB()
	loads, err := os.ReadDir(*dir)
	if err != nil && (*record == "" || !os.IsNotExist(err)) {
		fail(err)
	}
	if len(loads) == 0 {
		return
	}
	if *noise {
		fmt.Println(noiseHeader())
	} else {
		fmt.Println("| load | condition | pool: real runs per side | TTFMR ratio of pool medians | replayed gate runs: fail / inconclusive / pass | replayed wall time median / max | replayed runs per side median / max | disjoint gate runs: fail / inconclusive / pass | real gate runs: fail / inconclusive / pass | real wall time median / max | replayed checks that failed; held a pass back |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	}
	for _, l := range loads {
		if !l.IsDir() {
			continue
		}
		real := readGates(filepath.Join(*dir, l.Name(), "gates.tsv"))
		conds, _ := os.ReadDir(filepath.Join(*dir, l.Name()))
		for _, c := range conds {
			if !c.IsDir() {
				continue
			}
			files, _ := filepath.Glob(filepath.Join(*dir, l.Name(), c.Name(), *pools, "run", "*", "*", "results.json"))
			if len(files) == 0 {
				continue
			}
			if *noise {
				printNoise(l.Name()+"/"+c.Name(), files, ab)
				continue
			}
			p, err := loadPools(files, *swap)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				continue
			}
			r := replay(ab, p, *draws, *saturation)
			d := disjoint(ab, p, *saturation)
			g := real[c.Name()]
			fmt.Printf("| %s | %s | %s | ×%.2f | %s | %s | %s | %s | %s | %s | %s |\n", l.Name(), c.Name(), p.size(), p.ttfmrRatio(),
				r.counts(), r.wall(), r.runs(), d.counts(), g.counts(), g.wall(), r.checks())
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(2)
}

// pool is one condition's runs per side with each run's wall time, and the fleet set-up time.
type pool struct {
	base, cand         []results.Summary
	baseSecs, candSecs []float64
	setup              float64
	// aa: both sides ran one build, and base and cand are the one union of their runs.
	aa bool
}

// size is the real runs per side; an A/A pool's union is drawn for both sides.
func (p *pool) size() string {
	if p.aa {
		return fmt.Sprintf("%d (A/A: both sides' runs)", len(p.base))
	}
	return strconv.Itoa(len(p.base))
}

// loadPools joins the pools of one condition: their runs per side, and the mean of their fleet
// set-up times. swap exchanges the sides.
func loadPools(files []string, swap bool) (*pool, error) {
	var all pool
	for i, f := range files {
		p, err := loadPool(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if i > 0 && p.aa != all.aa {
			return nil, fmt.Errorf("%s: an A/A pool joined with one of two builds (%s)", f, files[0])
		}
		if swap {
			p.base, p.cand, p.baseSecs, p.candSecs = p.cand, p.base, p.candSecs, p.baseSecs
		}
		all.aa = p.aa
		all.base, all.baseSecs = append(all.base, p.base...), append(all.baseSecs, p.baseSecs...)
		all.setup += p.setup / float64(len(files))
		if !p.aa {
			all.cand, all.candSecs = append(all.cand, p.cand...), append(all.candSecs, p.candSecs...)
		}
	}
	if all.aa {
		all.cand, all.candSecs = all.base, all.baseSecs
	}
	return &all, nil
}

func loadPool(f string) (*pool, error) {
	r, err := results.Load(f)
	if err != nil {
		return nil, err
	}
	if r.AB == nil || len(r.AB.RunSeconds) != len(r.AB.Order) {
		return nil, fmt.Errorf("no A/B runs with their wall times")
	}
	p := &pool{setup: r.Scenario.FleetSetupSeconds}
	b, _ := r.Strategy(r.AB.Baseline)
	c, _ := r.Strategy(r.AB.Candidate)
	p.base, p.cand = b.Runs, c.Runs
	for i, name := range r.AB.Order {
		if name == r.AB.Baseline {
			p.baseSecs = append(p.baseSecs, r.AB.RunSeconds[i])
		} else {
			p.candSecs = append(p.candSecs, r.AB.RunSeconds[i])
		}
	}
	if sameBuild(r.AB.BaselineBuild, r.AB.CandidateBuild) {
		// An A/A pool: both sides ran one build, so every run is a draw of the one distribution.
		// Drawing each side from its own half would replay the chance difference between the
		// halves in every simulated gate run, as if it were a regression.
		p.base = append(slices.Clone(p.base), p.cand...)
		p.baseSecs = append(slices.Clone(p.baseSecs), p.candSecs...)
		p.cand, p.candSecs = p.base, p.baseSecs
		p.aa = true
	}
	return p, nil
}

// sameBuild reports whether two sides ran the same binary (by content) with the same arguments.
func sameBuild(a, b results.Build) bool {
	return a.SHA256 != "" && a.SHA256 == b.SHA256 && slices.Equal(a.Args, b.Args)
}

// ttfmrRatio is the candidate's TTFMR median over the baseline's, each as the gate takes it (a run
// without a TTFMR ranks after every run with one).
func (p *pool) ttfmrRatio() float64 {
	med := func(runs []results.Summary) float64 {
		v := make([]float64, len(runs))
		for i, s := range runs {
			v[i] = stats.Missing
			if s.TTFMRSeconds != nil {
				v[i] = *s.TTFMRSeconds
			}
		}
		return stats.Median(v)
	}
	return med(p.cand) / med(p.base)
}

// tally counts verdicts, wall times and runs per side of a cell's gate runs.
type tally struct {
	verdicts map[string]int
	walls    []float64
	perSide  []float64
	// failed and blocked count, per metric, the gate runs in which its check failed, and those in
	// which it held a pass back (inconclusive): what decided the cell's verdicts.
	failed, blocked map[string]int
}

func (t *tally) add(verdict string, wall float64, runs int) {
	if t.verdicts == nil {
		t.verdicts = map[string]int{}
	}
	t.verdicts[verdict]++
	t.walls = append(t.walls, wall)
	t.perSide = append(t.perSide, float64(runs))
}

// note counts the checks of one replayed gate run that failed or held its pass back.
func (t *tally) note(o *gate.ABOutcome) {
	if t.failed == nil {
		t.failed, t.blocked = map[string]int{}, map[string]int{}
	}
	for _, c := range o.Checks {
		switch {
		case c.Verdict == gate.Fail:
			t.failed[c.Metric.Metric]++
		case c.Blocks():
			t.blocked[c.Metric.Metric]++
		}
	}
}

// checks lists the counts of note, most frequent first.
func (t tally) checks() string {
	return cmp.Or(countList(t.failed), "none") + "; " + cmp.Or(countList(t.blocked), "none")
}

func (t tally) counts() string {
	if len(t.walls) == 0 {
		return "none"
	}
	return fmt.Sprintf("%d / %d / %d of %d", t.verdicts["fail"], t.verdicts["inconclusive"], t.verdicts["pass"], len(t.walls))
}

func medMax(v []float64, unit string) string {
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%s / %.0f%s", stats.Median(v), unit, slices.Max(v), unit)
}

func (t tally) wall() string { return medMax(t.walls, " s") }
func (t tally) runs() string { return medMax(t.perSide, "") }

// replay simulates draws gate runs on the pool with the gate's sequential rule and budget.
func replay(ab *results.AB, p *pool, draws int, saturation bool) tally {
	rng := rand.New(rand.NewPCG(1, 2))
	var t tally
	for range draws {
		wall := p.setup
		rounds := 0
		next := func(int) (results.Summary, results.Summary) {
			i, j := rng.IntN(len(p.base)), rng.IntN(len(p.cand))
			wall += p.baseSecs[i] + p.candSecs[j]
			rounds++
			return p.base[i], p.cand[j]
		}
		more := func(o *gate.ABOutcome) bool {
			return fitsBudget(ab, o.Plan.Runs(o.Look+1)-o.Runs, wall, wall-p.setup, rounds)
		}
		out, err := gate.Sequence(ab, next, more, options(saturation))
		if err != nil {
			fail(err)
		}
		t.add(verdictName(out.Verdict), wall, out.Runs)
		t.note(out)
	}
	return t
}

// fitsBudget is the budget rule as the simulation decides it: a block of rounds fits when its
// rounds, each as long as the mean so far (ran seconds over rounds), end within the budget.
func fitsBudget(ab *results.AB, block int, wall, ran float64, rounds int) bool {
	return ab.BudgetSeconds <= 0 || wall+float64(block)*ran/float64(rounds) <= ab.BudgetSeconds
}

func options(saturation bool) gate.ABOptions {
	if saturation {
		return gate.ABOptions{Saturated: gate.RanSaturated}
	}
	return gate.ABOptions{}
}

// disjoint judges the gate runs of one random partition of the pool: each gate run takes its runs,
// without replacement, from those no earlier gate run took, and the partition ends at the first
// gate run the remaining runs cannot finish. An A/A pool's two sides take from its one union. The
// budget is judged as in replay.
func disjoint(ab *results.AB, p *pool, saturation bool) tally {
	rng := rand.New(rand.NewPCG(3, 4))
	base, cand := rng.Perm(len(p.base)), rng.Perm(len(p.cand))
	if p.aa {
		// One shuffled queue: base takes its runs from the front, cand from the back.
		cand = nil
	}
	var t tally
	for {
		var (
			wall, rounds = p.setup, 0
			ranOut       bool
		)
		take := func() (int, int) {
			i := base[0]
			base = base[1:]
			if p.aa {
				j := base[len(base)-1]
				base = base[:len(base)-1]
				return i, j
			}
			j := cand[0]
			cand = cand[1:]
			return i, j
		}
		left := func() int {
			if p.aa {
				return len(base) / 2
			}
			return min(len(base), len(cand))
		}
		if left() < ab.Repeats {
			return t
		}
		next := func(int) (results.Summary, results.Summary) {
			i, j := take()
			wall += p.baseSecs[i] + p.candSecs[j]
			rounds++
			return p.base[i], p.cand[j]
		}
		more := func(o *gate.ABOutcome) bool {
			block := o.Plan.Runs(o.Look+1) - o.Runs
			if left() < block {
				ranOut = true
				return false
			}
			return fitsBudget(ab, block, wall, wall-p.setup, rounds)
		}
		out, err := gate.Sequence(ab, next, more, options(saturation))
		if err != nil {
			fail(err)
		}
		if ranOut {
			return t
		}
		t.add(verdictName(out.Verdict), wall, out.Runs)
	}
}

func verdictName(v gate.Verdict) string {
	switch v {
	case gate.Fail:
		return "fail"
	case gate.Inconclusive:
		return "inconclusive"
	}
	return "pass"
}

// readGates reads the real gate runs' exit codes and wall times per condition.
func readGates(path string) map[string]tally {
	out := map[string]tally{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 4 || cols[0] == "condition" {
			continue
		}
		code, _ := strconv.Atoi(cols[2])
		wall, _ := strconv.ParseFloat(cols[3], 64)
		t := out[cols[0]]
		t.add(exitVerdict(code), wall, 0)
		out[cols[0]] = t
	}
	return out
}
