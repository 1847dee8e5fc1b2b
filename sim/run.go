package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// Report is what Run produced.
type Report struct {
	Results *results.Results
	// Dir is the output folder.
	Dir string
}

// Run runs every strategy of the scenario (Repeats times each) and writes the output folder. A
// completed run whose controller broke an invariant or a threshold returns the report and a
// *ViolationError (invariants take precedence). A run whose context ends first starts nothing new
// (no API server, no strategy) and returns an error wrapping ErrInterrupted; that and any other
// failure leave IncompleteMarker in the folder and remove its etcd data, as a watcher process does
// should this process be killed outright.
func Run(ctx context.Context, opts Options) (*Report, error) {
	o := newRunConfig(opts)
	started := o.Clock.Now() // names the output folder
	var rep *Report
	p, err := prepare(ctx, o)
	dir := ""
	if err == nil {
		if dir, err = makeRunDir(p.o.OutDir, p.sc.Name, started); err != nil {
			err = runerr.BadInput(fmt.Errorf("output folder: %w", err))
		}
	}
	if err == nil {
		// Should this process be killed outright, the folder is marked and its etcd copies go all the same.
		w := env.StartWatcher()
		for _, pattern := range scratchPatterns {
			w.RemoveOnCrash(filepath.Join(dir, pattern))
		}
		w.NoteOnCrash(filepath.Join(dir, IncompleteMarker))
		defer w.Release(true)
		rep, err = runScenario(ctx, p, dir, started)
	}
	if ctx.Err() != nil && !IsInterrupted(err) {
		if err == nil {
			err = errors.New("the run's context ended before the run completed")
		}
		err = fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	var v *results.ViolationError
	if err == nil || errors.As(err, &v) || dir == "" {
		return rep, err
	}
	markIncomplete(dir, err)
	return rep, err
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
	res := newResults(p, started)
	res.AB = sc.ResultsAB()
	if res.AB != nil {
		base, cand := arms[abArm(arms, res.AB.Baseline)], arms[abArm(arms, res.AB.Candidate)]
		res.AB.BaselineBuild.Binary, res.AB.BaselineBuild.Version = base.binary(), base.version(ctx)
		res.AB.CandidateBuild.Binary, res.AB.CandidateBuild.Version = cand.binary(), cand.version(ctx)
		res.AB.BaselineBuild.SHA256, res.AB.CandidateBuild.SHA256 = base.sha256(), cand.sha256()
		res.Scenario.Repeats = rounds(sc)
	}
	peak := observe.StartRSSWatch(o.HeapPeakProfile)
	run := runRounds
	if p.o.Parallel > 1 {
		run = runBlocks
	}
	runs, err := run(ctx, p, dir, res)
	if err != nil {
		return nil, err
	}
	var series []results.Sample
	for i, a := range arms {
		expectOrphans(sc, a.st.Name, runs[i])
		rs, ts := combine(a.st, runs[i])
		a.describe(ctx, rs.Config)
		res.Strategies = append(res.Strategies, rs)
		series = append(series, ts...)
	}
	res.Environment.PeakRSSBytes, res.Environment.PeakRSSByProcess = peak.Stop()
	res.Scenario.WallSeconds = measure.Round3(time.Since(started).Seconds())
	forecast(sc, dir, res)
	evaluateThresholds(sc, res)
	if err := writeRun(outfile.Disk{}, o, dir, res, series); err != nil {
		return nil, err
	}
	return &Report{Results: res, Dir: dir}, verdict(res)
}

// newResults describes the run and its environment, before anything was measured.
func newResults(p *preparedRun, started time.Time) *results.Results {
	o, sc := p.o, p.sc
	res := &results.Results{
		Scenario: sc.ResultsScenario(o.ScenarioFile, started),
		Environment: results.Environment{RestartsimVersion: o.Version, GoVersion: runtime.Version(), OS: runtime.GOOS,
			Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Cluster: "envtest", AWSEndpoint: "in-process", AWSProfile: sc.AWS.Profile},
		Gate: slices.Clone(sc.Gate),
	}
	if p.cluster != nil {
		res.Environment.Cluster = "kubeconfig"
		res.Environment.EndpointSlices = "simulated"
		if p.cluster.clusterSlices {
			res.Environment.EndpointSlices = "cluster"
		}
	}
	if o.AWSEndpoint != "" {
		res.Environment.AWSEndpoint = o.AWSEndpoint
	}
	return res
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
			if len(t.Strategies) > 0 && !slices.Contains(t.Strategies, st.Name) {
				continue
			}
			c, err := gate.CheckRule(res, nil, results.GateRule{Strategy: st.Name, Metric: t.Metric, Max: &t.Max.Value})
			// A metric of an event that never happened (e.g. no meaningful mutation at all) fails.
			st.Thresholds = append(st.Thresholds, results.ThresholdResult{Metric: t.Metric, Limit: t.Max.Value, Value: c.Current,
				Passed: err == nil && c.Verdict != gate.Fail})
		}
	}
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
			inv = append(inv, fmt.Sprintf("%s: %s; %v", st.Name, st.Invariants.Describe(), names))
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
