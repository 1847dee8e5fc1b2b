package sim

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	cigate "github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// buildRestartsim builds the restartsim binary of this tree into a temporary directory.
func buildRestartsim(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "restartsim")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/restartsim/restartsim/cmd/restartsim")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building restartsim: %v\n%s", err, out)
	}
	return bin
}

// abRunScenario is the one-strategy scenario with the ab section given and a crash restart with churn.
func abRunScenario(t *testing.T, ab string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("ab.yaml", []byte(header+oneStrategy+ab+`timeline:
  - {action: restart, mode: crash}
  - {after: 1s, action: churn, kind: scale, services: 2}
  - {waitFor: steadyState, timeout: 2m}
`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestABGateCatchesSlowStart runs an A/B comparison of the same build against itself with a
// start-up regression injected into the candidate (the slow-start mutant: reconciling starts 1.5 s
// late) and checks that the runs interleave on one fleet, that every restart cost is measured out
// of process, and that the gate fails on TTFMR with the check named.
func TestABGateCatchesSlowStart(t *testing.T) {
	testenv.RequireAssets(t)
	bin := buildRestartsim(t)
	sc := abRunScenario(t, `ab:
  strategy: ckpt
  repeats: 5
  maxRepeats: 5
  baseline: {binary: `+bin+`}
  candidate: {binary: `+bin+`, args: [--mutant=slow-start, --mutant-delay=1500ms, --allow-mutants]}
  metrics: [{metric: ttfmr_seconds}, {metric: controller_cpu_seconds_before_first_meaningful}]
`)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Progress: io.Discard, Stdout: io.Discard, NoReport: true})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results
	if want := []string{"ckpt-baseline", "ckpt", "ckpt", "ckpt-baseline", "ckpt-baseline", "ckpt", "ckpt", "ckpt-baseline", "ckpt-baseline", "ckpt"}; !slices.Equal(res.AB.Order, want) {
		t.Errorf("run order %v, want %v", res.AB.Order, want)
	}
	for _, name := range []string{"ckpt-baseline", "ckpt"} {
		st, ok := res.Strategy(name)
		if !ok || len(st.Runs) != 5 {
			t.Fatalf("strategy %s: %d runs, want 5", name, len(st.Runs))
		}
		if st.Config["binary"] != bin || st.Config["version"] == "" {
			t.Errorf("%s: config %v, want the binary and its version", name, st.Config)
		}
		for i, r := range st.Runs {
			m := r.Metrics()
			for _, k := range []string{results.MetricTTFMR, results.MetricControllerCPUBeforeFirst, results.MetricAPIRequestsBeforeFirst, results.MetricCacheSync} {
				if _, ok := m[k]; !ok {
					t.Errorf("%s run %d: %s not measured", name, i+1, k)
				}
			}
		}
		if !st.Invariants.Passed {
			t.Errorf("%s: invariants %+v", name, st.Invariants)
		}
	}
	greport, err := cigate.Evaluate(res, nil)
	if !cigate.IsViolation(err) {
		t.Fatalf("gate: err %v, want a violation; checks %+v", err, greport)
	}
	// A later start also costs CPU before the first meaningful reconcile (the informers run
	// meanwhile), so that check may fail too; TTFMR must.
	var names []string
	for _, c := range greport.FailedAB() {
		names = append(names, c.Name())
	}
	if !slices.Contains(names, "ab/ttfmr_seconds") || !strings.Contains(err.Error(), "ab/ttfmr_seconds") {
		t.Errorf("failed A/B checks %v (%v), want ab/ttfmr_seconds named", names, err)
	}
}

// TestABGateInconclusive: with one look's worth of runs too few for the test (2 + 2) and a budget
// too small for another block, the comparison stops after its first look, says so, and the gate
// judges it inconclusive (the too few runs named) rather than passing it.
func TestABGateInconclusive(t *testing.T) {
	testenv.RequireAssets(t)
	bin := buildRestartsim(t)
	sc := abRunScenario(t, `ab:
  strategy: ckpt
  repeats: 2
  block: 2
  maxRepeats: 10
  budget: 1s
  baseline: {binary: `+bin+`}
  candidate: {binary: `+bin+`}
  metrics: [{metric: ttfmr_seconds}]
`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stdout bytes.Buffer
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Progress: io.Discard, Stdout: &stdout, NoReport: true})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Results
	if st, _ := res.Strategy("ckpt"); len(st.Runs) != 2 || res.AB.Stopped != "budget" || len(res.AB.RunSeconds) != 4 {
		t.Errorf("%d candidate runs, stopped %q, %d run times: want 2, budget, 4", len(st.Runs), res.AB.Stopped, len(res.AB.RunSeconds))
	}
	for _, want := range []string{"A/B look 1 of 5: 2 + 2 runs", "ttfmr_seconds", "INCONCLUSIVE", "of the budget is left: stop"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the look's output lacks %q:\n%s", want, stdout.String())
		}
	}
	_, err = cigate.Evaluate(res, nil)
	if !cigate.IsInconclusive(err) || !strings.Contains(err.Error(), "too few runs") {
		t.Errorf("gate: %v, want inconclusive for too few runs", err)
	}
}
