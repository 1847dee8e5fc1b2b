package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/scenario"
)

// Report is what Run produced.
type Report struct {
	Results *results.Results
	// Dir is the output folder.
	Dir string
}

// runScenario is Run once the scenario is prepared and its output folder dir created, without
// its handling of interrupted and failed runs.
func runScenario(ctx context.Context, p *preparedRun, dir string, started time.Time) (*Report, error) {
	o, sc, arms := p.o, p.sc, p.arms
	if o.ScenarioFile != "" {
		// The text parsed, not the file read again: a pipe has nothing left to give, and a file
		// may have changed since.
		if data := sc.Source(); data != nil {
			_ = os.WriteFile(filepath.Join(dir, "scenario.yaml"), data, 0o644)
		} else if data, err := scenario.ReadFile(ctx, o.ScenarioFile); err == nil {
			_ = os.WriteFile(filepath.Join(dir, "scenario.yaml"), data, 0o644)
		}
	}
	res := newResults(o, sc, started)
	res.AB = sc.ResultsAB()
	if res.AB != nil {
		base, cand := arms[abArm(arms, res.AB.Baseline)], arms[abArm(arms, res.AB.Candidate)]
		res.AB.BaselineBuild.Binary, res.AB.BaselineBuild.Version = base.binary(), base.version(ctx)
		res.AB.CandidateBuild.Binary, res.AB.CandidateBuild.Version = cand.binary(), cand.version(ctx)
		res.AB.BaselineBuild.SHA256, res.AB.CandidateBuild.SHA256 = base.sha256(), cand.sha256()
		res.Scenario.Repeats = rounds(sc)
	}
	peak := observe.StartRSSWatch(o.HeapPeakProfile)
	runs, err := runRounds(ctx, o, sc, arms, dir, res)
	if err != nil {
		return nil, err
	}
	var series []results.Sample
	for i, a := range arms {
		rs, ts := combine(a.st, runs[i])
		a.describe(ctx, rs.Config)
		res.Strategies = append(res.Strategies, rs)
		series = append(series, ts...)
	}
	res.Environment.PeakRSSBytes, res.Environment.PeakRSSByProcess = peak.Stop()
	res.Scenario.WallSeconds = measure.Round3(time.Since(started).Seconds())
	evaluateThresholds(sc, res)
	if err := writeRun(outfile.Disk{}, o, dir, res, series); err != nil {
		return nil, err
	}
	return &Report{Results: res, Dir: dir}, verdict(res)
}

// preparedRun is a run that passed prepare's checks.
type preparedRun struct {
	o    Options
	sc   *scenario.Scenario // with only the strategies asked for
	arms []arm
}

// prepare checks what a run needs before it writes anything: the scenario, the strategies asked
// for, the files they name on this machine and, on a kubeconfig cluster, that the cluster is fit
// for the run.
func prepare(ctx context.Context, opts Options) (*preparedRun, error) {
	o := opts.setDefaults()
	sc, arms, err := check(o)
	if err != nil {
		return nil, err
	}
	if err := checkEnvtestAssets(o, sc); err != nil {
		return nil, err
	}
	if o.cluster, err = prepareCluster(ctx, o, sc); err != nil {
		return nil, err
	}
	return &preparedRun{o: o, sc: sc, arms: arms}, nil
}

// newResults describes the run and its environment, before anything was measured.
func newResults(o Options, sc *scenario.Scenario, started time.Time) *results.Results {
	res := &results.Results{
		Scenario: results.Scenario{Name: sc.Name, File: o.ScenarioFile, Seed: sc.Seed, TimeScale: sc.TimeScale,
			TGBs: sc.Fleet.TargetGroupBindings, StartedAt: started.UTC(), Repeats: sc.Repeats},
		Environment: results.Environment{RestartsimVersion: o.Version, GoVersion: runtime.Version(), OS: runtime.GOOS,
			Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Cluster: "envtest", AWSEndpoint: "in-process", AWSProfile: sc.AWS.Profile},
		Gate: sc.ResultsGate(),
	}
	if o.cluster != nil {
		res.Environment.Cluster = "kubeconfig"
		res.Environment.EndpointSlices = "simulated"
		if o.cluster.clusterSlices {
			res.Environment.EndpointSlices = "cluster"
		}
	}
	if o.AWSEndpoint != "" {
		res.Environment.AWSEndpoint = o.AWSEndpoint
	}
	return res
}

// runRounds runs every arm once per round (repeat), each round's seed on a fleet snapshot shared
// by its arms when the scenario allows one, and returns every arm's runs.
func runRounds(ctx context.Context, o Options, sc *scenario.Scenario, arms []arm, dir string, res *results.Results) ([][]*strategyOutcome, error) {
	runs := make([][]*strategyOutcome, len(arms))
	var snap *fleetSnapshot
	dropSnapshot := func() {
		if snap != nil {
			_ = os.RemoveAll(snap.etcdDir) // large; the logs beside it stay
		}
	}
	defer dropSnapshot()
	var roundSecs []float64
	target := rounds(sc) // rounds to run before the next look (A/B) or in all
	for round := 0; round < target; round++ {
		if res.AB != nil && round >= 2 && !roundFits(res.AB, res.Scenario.StartedAt, roundSecs) {
			// Even the first look's runs stop at the budget; the gate judges those it has.
			res.AB.Stopped = "budget"
			fmt.Fprintf(o.Stdout, "A/B: the budget ends the runs after %d + %d\n", round, round)
			abLook(o, res, arms, runs, roundSecs)
			break
		}
		seed := roundSeed(sc, round)
		if round == 0 || seed != roundSeed(sc, round-1) {
			dropSnapshot()
			var err error
			if snap, err = seedSnapshot(ctx, o, sc, len(arms), seed, filepath.Join(dir, "fleet-"+strconv.FormatInt(seed, 10))); err != nil {
				return nil, fmt.Errorf("fleet snapshot: %w", err)
			}
			if snap != nil {
				res.Scenario.FleetSetupSeconds += measure.Round3(snap.stats.Elapsed.Seconds())
			}
		}
		roundStart := time.Now()
		for k, i := range armOrder(sc, arms, round) {
			a := arms[i]
			sdir := filepath.Join(dir, a.st.Name)
			if rounds(sc) > 1 {
				sdir = filepath.Join(dir, a.st.Name, "repeat-"+strconv.Itoa(round+1))
			}
			o.Logger.Info(fmt.Sprintf("strategy %d/%d %s, repeat %d/%d", k+1, len(arms), a.st.Name, round+1, target))
			if o.cluster != nil {
				o.cluster.seq++
			}
			runStart := time.Now()
			r, err := runStrategy(ctx, o, sc, a, seed, sdir, snap)
			if err != nil {
				return nil, fmt.Errorf("strategy %s: %w", a.st.Name, err)
			}
			runs[i] = append(runs[i], r)
			if res.AB != nil {
				res.AB.Order = append(res.AB.Order, a.st.Name)
				res.AB.RunSeconds = append(res.AB.RunSeconds, measure.Round3(time.Since(runStart).Seconds()))
			}
			res.Scenario.FleetSetupSeconds += measure.Round3(r.fleetSetup.Seconds())
			if res.Environment.KubernetesVersion == "" {
				res.Environment.KubernetesVersion = r.k8sVersion
			}
		}
		roundSecs = append(roundSecs, time.Since(roundStart).Seconds())
		if res.AB != nil && round+1 == target {
			target = max(target, abLook(o, res, arms, runs, roundSecs))
		}
	}
	return runs, nil
}

// seedSnapshot builds seed's fleet snapshot when the strategies can share one (nil otherwise).
func seedSnapshot(ctx context.Context, o Options, sc *scenario.Scenario, strategies int, seed int64, dir string) (*fleetSnapshot, error) {
	if !useFleetSnapshot(o, sc, strategies) {
		return nil, nil
	}
	return buildFleetSnapshot(ctx, o, sc, seed, dir)
}

// combine turns the repeats of a strategy into its entry: the summary of the median run by blind
// time, else by TTFMR (so every figure comes from one consistent run), every run's summary when
// there are several.
func combine(st scenario.Strategy, runs []*strategyOutcome) (results.Strategy, []results.Sample) {
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	headline := func(i int) float64 {
		s := runs[i].out.Summary
		if s.BlindTime.Count > 0 {
			return s.BlindTime.P50
		}
		if s.TTFMRSeconds != nil {
			return *s.TTFMRSeconds
		}
		return 1e18
	}
	sort.SliceStable(order, func(a, b int) bool { return headline(order[a]) < headline(order[b]) })
	med := runs[order[len(order)/2]]
	rs := results.Strategy{Name: st.Name, Config: strategyConfig(st), Summary: med.out.Summary, Changes: med.out.Changes,
		Events: med.events, Invariants: med.invariants, Restart: med.out.Restart, Restarts: med.out.Restarts, Unapplied: med.out.Unapplied}
	if in := med.input; in != nil && !in.Origin.IsZero() {
		rs.CallLogOrigin = &in.Origin
	}
	if len(runs) > 1 {
		for _, r := range runs {
			rs.Runs = append(rs.Runs, r.out.Summary)
			if !r.invariants.Passed {
				rs.Invariants = r.invariants // any failing repeat fails the strategy
			}
		}
	}
	if rs.Changes == nil {
		rs.Changes = []results.Change{}
	}
	if rs.Events == nil {
		rs.Events = []results.Event{}
	}
	if rs.Invariants.Violations == nil {
		rs.Invariants.Violations = []results.Violation{}
	}
	ts := make([]results.Sample, len(med.out.Timeseries))
	for i, s := range med.out.Timeseries {
		s.Strategy = st.Name
		ts[i] = s
	}
	return rs, ts
}

// strategyConfig is the strategy's knobs as the results record them: every field the scenario set,
// as its JSON form writes it, but the name and what runs it (binary, args and external, which
// arm.describe records). Deriving it from the type keeps a new knob from needing an edit here.
func strategyConfig(st scenario.Strategy) map[string]string {
	raw, err := json.Marshal(st)
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		return map[string]string{"error": err.Error()}
	}
	m := make(map[string]string, len(fields))
	for k, v := range fields {
		switch k {
		case "name", "binary", "args", "external", "inProcess":
			continue
		}
		m[k] = fmt.Sprint(v)
	}
	return m
}

// evaluateThresholds judges the scenario's thresholds with the gate's limit check: a threshold is
// a gate rule with an absolute limit only.
func evaluateThresholds(sc *scenario.Scenario, res *results.Results) {
	for i := range res.Strategies {
		st := &res.Strategies[i]
		st.Thresholds = []results.ThresholdResult{}
		for _, t := range sc.Thresholds {
			if len(t.Strategies) > 0 && !contains(t.Strategies, st.Name) {
				continue
			}
			c, err := gate.CheckRule(res, nil, results.GateRule{Strategy: st.Name, Metric: t.Metric, Max: &t.Max.Value})
			// A metric of an event that never happened (e.g. no meaningful mutation at all) fails.
			st.Thresholds = append(st.Thresholds, results.ThresholdResult{Metric: t.Metric, Limit: t.Max.Value, Value: c.Current,
				Passed: err == nil && c.Verdict != gate.Fail})
		}
	}
}

// selectStrategies returns a copy of sc with only the named strategies.
func selectStrategies(sc *scenario.Scenario, names []string) (*scenario.Scenario, error) {
	have := sc.StrategyNames()
	for _, n := range names {
		if !contains(have, n) {
			return nil, fmt.Errorf("strategy %q: not in scenario %s (have: %v)", n, sc.Name, have)
		}
	}
	if sc.Controller.External != nil {
		return sc, nil
	}
	cp := *sc
	cp.Controller.Strategies = nil
	for _, st := range sc.Controller.Strategies {
		if contains(names, st.Name) {
			cp.Controller.Strategies = append(cp.Controller.Strategies, st)
		}
	}
	return &cp, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// verdict returns the typed violation of a completed run, if any: invariants broken first, then
// changes left unapplied unexpectedly, then thresholds breached.
func verdict(res *results.Results) error {
	var inv, thr []string
	for _, st := range res.Strategies {
		if !st.Invariants.Passed {
			names := []string{}
			for _, v := range st.Invariants.Violations[:min(5, len(st.Invariants.Violations))] {
				names = append(names, v.TGB+" ("+v.Kind+")")
			}
			inv = append(inv, fmt.Sprintf("%s: %d missing, %d stale targets; %v", st.Name, st.Invariants.Missing, st.Invariants.Stale, names))
		}
		for _, t := range st.Thresholds {
			if !t.Passed {
				thr = append(thr, fmt.Sprintf("%s: %s = %g > %g", st.Name, t.Metric, t.Value, t.Limit))
			}
		}
	}
	if len(inv) > 0 {
		return &results.ViolationError{Kind: results.ViolationInvariant, Details: inv}
	}
	if u := unappliedFindings(res); len(u) > 0 {
		return &results.ViolationError{Kind: results.ViolationUnapplied, Summary: "changes never applied", Details: u}
	}
	if len(thr) > 0 {
		return &results.ViolationError{Kind: results.ViolationThreshold, Details: thr}
	}
	return nil
}
