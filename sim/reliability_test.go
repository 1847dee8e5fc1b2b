package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/scenario"
)

// seedRun is one run of a reliability scenario with one seed.
type seedRun struct {
	scenario string
	seed     int64
	faults   int // AWS faults, drifts and crash restarts injected
	err      error
	res      *results.Strategy
}

func (r seedRun) violations() int {
	if r.res == nil {
		return 1
	}
	n := len(r.res.Invariants.Violations)
	for _, t := range r.res.Thresholds {
		if !t.Passed && t.Metric != results.MetricInvariantViolations {
			n++
		}
	}
	return n
}

// runSeed runs the scenario file's first strategy with the given seed.
func runSeed(t *testing.T, file string, seed int64) seedRun {
	t.Helper()
	sc, err := scenario.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	sc.Seed = seed
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Stdout: io.Discard, Progress: io.Discard, NoReport: true})
	r := seedRun{scenario: sc.Name, seed: seed, err: err}
	if rep != nil && len(rep.Results.Strategies) > 0 {
		r.res = &rep.Results.Strategies[0]
		for _, ev := range r.res.Events {
			switch {
			case ev.Kind == "awsFault" || ev.Kind == "awsDrift":
				r.faults++
			case ev.Kind == "restart" && ev.Detail == scenario.RestartCrash:
				r.faults++
			}
		}
	}
	return r
}

// checkConverged fails unless the run converged with every invariant holding.
func checkConverged(t *testing.T, r seedRun) {
	t.Helper()
	if r.err != nil {
		t.Errorf("%s seed %d: %v", r.scenario, r.seed, r.err)
		return
	}
	if r.res == nil || !r.res.Invariants.Passed {
		t.Errorf("%s seed %d: not converged: %+v", r.scenario, r.seed, r.res)
		return
	}
	if r.res.Summary.SteadyStateSeconds == nil {
		// The invariants hold, but some recorded change was never seen applied: e.g. a container
		// restart shorter than the controller's reaction needs no deregistration at all.
		t.Logf("%s seed %d: invariants hold but steady state was not reached", r.scenario, r.seed)
	}
}

// TestCrashAnywhere kills the controller at random points of a busy reconcile period (two crashes
// per run, drawn from the seed) and checks the invariants after each run.
func TestCrashAnywhere(t *testing.T) {
	testenv.RequireAssets(t)
	for _, seed := range []int64{100, 101, 102} {
		r := runSeed(t, "../scenarios/crash-anywhere.yaml", seed)
		checkConverged(t, r)
		if r.res == nil {
			continue
		}
		crashes := 0
		for _, ev := range r.res.Events {
			if ev.Kind == "restart" {
				crashes++
			}
		}
		if crashes != 2 {
			t.Errorf("seed %d: %d crashes, want 2", seed, crashes)
		}
	}
}

// TestFaultsScenarioShowsWindows runs scenarios/faults.yaml once: the reference converges after the
// throttle storm, error rate, outage and latency, and the events carry each fault's window.
func TestFaultsScenarioShowsWindows(t *testing.T) {
	testenv.RequireAssets(t)
	r := runSeed(t, "../scenarios/faults.yaml", 200)
	checkConverged(t, r)
	if r.res == nil {
		return
	}
	kinds := map[string]bool{}
	for _, ev := range r.res.Events {
		if ev.Kind == "awsFault" {
			kind, _, _ := strings.Cut(ev.Detail, " ")
			kinds[kind] = true
			if ev.EndSeconds <= ev.AtSeconds {
				t.Errorf("fault %q has no window: %+v", ev.Detail, ev)
			}
		}
	}
	for _, k := range []string{scenario.FaultLimit, scenario.FaultErrors, scenario.FaultOutage, scenario.FaultLatency} {
		if !kinds[k] {
			t.Errorf("no %s fault window in the events %+v", k, r.res.Events)
		}
	}
	if r.res.Summary.Throttled == 0 {
		t.Error("the throttle storm throttled nothing")
	}
}

// TestKubeconfigRunCleansUpWhenInterrupted runs a scenario on an envtest treated as an external
// cluster (its kubeconfig passed as Options.Kubeconfig), cancels it mid-run as SIGINT does, and
// checks that the run's labelled objects are gone, that a bystander namespace was not touched,
// and that nothing was written outside the output folder.
func TestKubeconfigRunCleansUpWhenInterrupted(t *testing.T) {
	testenv.RequireAssets(t)
	ctx := context.Background()
	cluster, err := env.Start(ctx, env.Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cluster.Stop(); err != nil {
			t.Logf("stopping the environment: %v", err)
		}
	}()
	c, err := client.New(cluster.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	bystander := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bystander"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "bystander", Name: "keep"}, Data: map[string]string{"k": "v"}}
	for _, o := range []client.Object{bystander, cm} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	sc, err := scenario.Parse("it.yaml", []byte(header+oneStrategy+`timeline:
  - {action: churn, kind: mixed, services: 3}
  - {action: wait, duration: 10m}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // anything written to the temp dir would land here
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg     sync.WaitGroup
		runErr error
	)
	log, churned := logSignal(`"msg"="step done"`, `"action"="churn"`)
	wg.Go(func() {
		_, runErr = Run(runCtx, Options{Scenario: sc, Kubeconfig: cluster.ControllerKubeconfig, OutDir: out,
			Stdout: io.Discard, Progress: io.Discard, NoReport: true, Logger: log})
	})
	// Interrupt once the fleet is there and the controller has saved some checkpoints.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var tgbs v1beta1.TargetGroupBindingList
		if err := c.List(ctx, &tgbs, client.HasLabels{RunLabel}); err != nil {
			t.Fatal(err)
		}
		saved := 0
		for _, tgb := range tgbs.Items {
			if tgb.Annotations[observe.CheckpointAnnotation] != "" {
				saved++
			}
		}
		if saved >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoints after 2 min (%d TGBs)", len(tgbs.Items))
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Mid-run: the churn step is done, its objects are there for the cleanup to remove too.
	select {
	case <-churned:
	case <-time.After(testwait.Scale(t, 2*time.Minute)):
		cancel()
		wg.Wait()
		t.Fatalf("the churn step did not finish within 2 min: %v", runErr)
	}
	cancel()
	wg.Wait()
	if !errors.Is(runErr, context.Canceled) {
		t.Errorf("Run after cancel: %v, want context.Canceled", runErr)
	}

	var tgbs v1beta1.TargetGroupBindingList
	if err := c.List(ctx, &tgbs, client.HasLabels{RunLabel}); err != nil {
		t.Fatal(err)
	}
	if len(tgbs.Items) != 0 {
		t.Errorf("%d run TGBs left after the interrupted run", len(tgbs.Items))
	}
	var nss corev1.NamespaceList
	if err := c.List(ctx, &nss, client.HasLabels{RunLabel}); err != nil {
		t.Fatal(err)
	}
	if len(nss.Items) == 0 {
		t.Error("no run namespaces seen at all")
	}
	for _, ns := range nss.Items {
		// envtest runs no namespace controller: deleted namespaces stay Terminating.
		if ns.DeletionTimestamp == nil {
			t.Errorf("run namespace %s not deleted", ns.Name)
		}
	}
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes, client.HasLabels{RunLabel}); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 0 {
		t.Errorf("%d run nodes left", len(nodes.Items))
	}
	var all corev1.NamespaceList
	if err := c.List(ctx, &all); err != nil {
		t.Fatal(err)
	}
	for _, ns := range all.Items {
		if _, ours := ns.Labels[RunLabel]; !ours && ns.DeletionTimestamp != nil {
			t.Errorf("namespace %s, not the run's, was deleted", ns.Name)
		}
	}
	got := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil || got.ResourceVersion != cm.ResourceVersion {
		t.Errorf("bystander ConfigMap touched: %v (resourceVersion %s → %s)", err, cm.ResourceVersion, got.ResourceVersion)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("the run wrote outside its output folder, into the temp dir: %v", entries)
	}
}

// TestSoak is `make soak`: crash-anywhere and faults over as many seeds as fit in
// RESTARTSIM_SOAK_DURATION (default 10m), after the mutation score; it prints the figures.
func TestSoak(t *testing.T) {
	if os.Getenv("RESTARTSIM_SOAK") == "" {
		t.Skip("set RESTARTSIM_SOAK=1 (make soak)")
	}
	testenv.RequireAssets(t)
	budget := 10 * time.Minute
	if v := os.Getenv("RESTARTSIM_SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatal(err)
		}
		budget = d
	}
	start := time.Now()
	// The mutation score first.
	scs := mutantScenarios(t)
	caught := 0
	for _, m := range sortedMapKeys(scs) {
		run := func(strategy string) error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			_, err := Run(ctx, Options{Scenario: scs[m], Strategies: []string{strategy}, OutDir: t.TempDir(),
				Stdout: io.Discard, Progress: io.Discard, NoReport: true})
			return err
		}
		refErr, mutErr := run("reference"), run("mutant")
		var v *results.ViolationError
		ok := refErr == nil && errors.As(mutErr, &v)
		if ok {
			caught++
		} else {
			t.Errorf("mutant %s: reference err %v, mutant err %v", m, refErr, mutErr)
		}
		fmt.Printf("soak: mutant %-22s reference %s, mutant %s\n", m, verdictWord(refErr), verdictWord(mutErr))
	}
	// The seed sweep.
	files := []string{"../scenarios/crash-anywhere.yaml", "../scenarios/faults.yaml"}
	var runs []seedRun
	seeds := map[string]bool{}
	for i := 0; time.Since(start) < budget; i++ {
		f := files[i%len(files)]
		seed := int64(1000 + i/len(files))
		r := runSeed(t, f, seed)
		checkConverged(t, r)
		runs = append(runs, r)
		seeds[strconv.FormatInt(seed, 10)] = true
		fmt.Printf("soak: %-15s seed %d: %d faults injected, %d violations, err %v\n", r.scenario, seed, r.faults, r.violations(), r.err)
	}
	faults, violations := 0, 0
	for _, r := range runs {
		faults += r.faults
		violations += r.violations()
	}
	summary := fmt.Sprintf("soak summary: %d runs (%s), %d seeds, %d faults injected (AWS faults, drifts, crash restarts), "+
		"%d violations found (reference), mutants caught %d/%d, wall %s\n",
		len(runs), strings.Join(baseNames(files), " + "), len(seeds), faults, violations, caught, len(scs), time.Since(start).Round(time.Second))
	fmt.Print(summary)
	if dir := os.Getenv("RESTARTSIM_SOAK_OUT"); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, "soak-summary.txt"), []byte(summary), 0o644)
	}
}

func verdictWord(err error) string {
	var v *results.ViolationError
	switch {
	case err == nil:
		return "passed"
	case errors.As(err, &v):
		return "caught (" + v.Kind + ")"
	default:
		return "error: " + err.Error()
	}
}

func baseNames(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Base(f)
	}
	return out
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
