package restartsimtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
)

// Scenario is the scenario a test runs: a file or YAML text (File, YAML).
type Scenario struct {
	path string
	data []byte
}

// File is the scenario file at path, relative to the test's package directory as `go test`
// runs it (so are the file's cluster.crds).
func File(path string) Scenario { return Scenario{path: path} }

// YAML is a scenario written in the test; errors name it "scenario.yaml".
func YAML(text string) Scenario { return Scenario{data: []byte(text)} }

func (s Scenario) load(ctx context.Context) (*scenario.Scenario, error) {
	if s.path != "" {
		return scenario.LoadContext(ctx, s.path)
	}
	if s.data == nil {
		return nil, errors.New("no scenario: use restartsimtest.File or restartsimtest.YAML")
	}
	return scenario.Parse("scenario.yaml", s.data)
}

// Result is what a run measured.
type Result struct {
	// Dir is the run's folder: results.json, timeseries.csv, fakeaws's call log and each
	// strategy's controller.log.
	Dir string
	// Results is results.json's content. Times are scenario seconds.
	Results *results.Results
}

// Summary is the named strategy's summary: blind time, TTFMR, AWS calls and the rest.
func (r *Result) Summary(strategy string) (results.Summary, bool) {
	if r == nil || r.Results == nil {
		return results.Summary{}, false
	}
	for _, st := range r.Results.Strategies {
		if st.Name == strategy {
			return st.Summary, true
		}
	}
	return results.Summary{}, false
}

// runs serializes Run: controller-runtime's metrics registry, which the harness reads for the
// replicas' queues and reconcile work, is the process's, so two runs at once would read each
// other's controllers.
var runs sync.Mutex

// Run runs the scenario with setup filling every inProcess strategy's managers (Setup options
// fill some differently), and returns what it measured. It calls t.Fatalf when the run cannot
// start or fails (bad scenario, a setup error, a manager that returned on its own, a warm-up
// that never converged) and t.Errorf for every threshold breached and every invariant violated,
// with the numbers. Times are scenario seconds; memory figures are the test process's, which the
// harness, fakeaws and every replica share. It runs on t.Context(). Runs in one process take
// turns (parallel tests wait for each other): the replicas' metrics are the process's.
func Run(t testing.TB, sc Scenario, setup SetupFunc, opts ...Option) *Result {
	t.Helper()
	runs.Lock()
	defer runs.Unlock()
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	ctx := t.Context()
	parsed, err := sc.load(ctx)
	if err != nil {
		t.Fatalf("restartsimtest: scenario: %v", err)
		return nil
	}
	setups, err := managerSetups(parsed, setup, o.setups)
	if err != nil {
		t.Fatalf("restartsimtest: %v", err)
		return nil
	}
	if o.outDir == "" {
		o.outDir = t.TempDir()
	}
	var table bytes.Buffer
	out := o.summary
	if out == nil {
		out = &table
	}
	rep, err := sim.Run(ctx, sim.Options{Scenario: parsed, ScenarioFile: sc.path, OutDir: o.outDir, AssetsDir: o.assetsDir,
		Stdout: out, Progress: io.Discard, Logger: o.logger, NoReport: !o.report, ManagerSetups: setups, NewScheme: o.newScheme})
	if table.Len() > 0 {
		t.Log("\n" + table.String())
	}
	var v *results.ViolationError
	if err != nil && !errors.As(err, &v) {
		dir := ""
		if rep != nil {
			dir = " (output " + rep.Dir + ")"
		}
		t.Fatalf("restartsimtest: run %s: %v%s", parsed.Name, err, dir)
		return nil
	}
	reportFailures(t, rep.Results)
	return &Result{Dir: rep.Dir, Results: rep.Results}
}

// managerSetups maps every inProcess strategy to its setup: the Setup option's for it, else def.
func managerSetups(sc *scenario.Scenario, def SetupFunc, named map[string]SetupFunc) (map[string]sut.ManagerSetup, error) {
	out := map[string]sut.ManagerSetup{}
	for _, st := range sc.Controller.Strategies {
		if st.InProcess == nil {
			continue
		}
		f := named[st.Name]
		if f == nil {
			f = def
		}
		if f == nil {
			return nil, fmt.Errorf("strategy %s: no setup (Run's setup is nil and no Setup option names it)", st.Name)
		}
		out[st.Name] = f
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("scenario %s has no inProcess strategy for the test's controller; declare one, e.g. controller: {strategies: [{name: mine, inProcess: {}}]}", sc.Name)
	}
	for name := range named {
		if out[name] == nil {
			return nil, fmt.Errorf("Setup(%q): scenario %s has no inProcess strategy of that name", name, sc.Name)
		}
	}
	return out, nil
}

// reportFailures fails t once per breached threshold and per strategy whose invariants failed.
func reportFailures(t testing.TB, res *results.Results) {
	t.Helper()
	for _, st := range res.Strategies {
		for _, th := range st.Thresholds {
			if !th.Passed {
				t.Errorf("strategy %s: threshold %s: value %g exceeds the limit %g", st.Name, th.Metric, th.Value, th.Limit)
			}
		}
		if !st.Invariants.Passed {
			t.Errorf("strategy %s: invariants violated: %s%s", st.Name, st.Invariants.Describe(), violations(st.Invariants.Violations))
		}
	}
}

// violations lists the first few violations.
func violations(vs []results.Violation) string {
	if len(vs) == 0 {
		return ""
	}
	var b strings.Builder
	for i, v := range vs[:min(5, len(vs))] {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s (%s: %s)", v.TGB, v.Kind, v.Detail)
	}
	if len(vs) > 5 {
		fmt.Fprintf(&b, "; and %d more", len(vs)-5)
	}
	return ";" + b.String()
}
