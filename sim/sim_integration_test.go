package sim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// header is the common part of the tiny test scenarios; each test appends controller and timeline.
const header = `apiVersion: restartsim/v1
kind: Scenario
name: it
seed: 3
timeScale: 10
aws: {profile: aws-documented, warmupProfile: unlimited, healthyAfter: 2s, deregistrationDelay: 10s}
fleet: {targetGroupBindings: 8, podsPerService: 2, nodes: 3, readinessGateShare: 0.5, networkingShare: 0.5}
`

const oneStrategy = `controller:
  strategies: [{name: ckpt, checkpoint: annotation, deferralDelay: 30m, deferralJitter: 1m}]
`

// runTiny parses the scenario and runs its first strategy, returning the run (with what the
// measurements saw) and the strategy's output folder.
func runTiny(t *testing.T, yaml string) (*strategyOutcome, string) {
	t.Helper()
	testenv.RequireAssets(t)
	sc, err := scenario.Parse("it.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := newRunConfig(Options{Scenario: sc, Progress: io.Discard, Stdout: io.Discard})
	strat := scenario.Strategy{Name: "external"}
	if len(sc.Controller.Strategies) > 0 {
		strat = sc.Controller.Strategies[0]
	}
	r, err := runStrategy(ctx, o, sc, arm{st: strat, ext: sc.Controller.External}, sc.Seed, dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// mutationsApplying lists the successful register/deregister calls after from that carry a target
// of some change.
func firstApplying(in *measure.Input, from float64) (float64, bool) {
	want := map[string]bool{}
	for _, ch := range in.Changes {
		for _, tg := range append(append([]tgbexpect.Target(nil), ch.Register...), ch.Deregister...) {
			want[ch.TargetGroupARN+"|"+tg.ID] = true
		}
	}
	for i := range in.Calls {
		c := &in.Calls[i]
		if c.Outcome != fakeaws.OutcomeOK || (c.Operation != "RegisterTargets" && c.Operation != "DeregisterTargets") || in.Sec(c) < from {
			continue
		}
		for _, tg := range c.Targets {
			if want[c.TargetGroupARN+"|"+tg.ID] {
				return in.Effective(c), true
			}
		}
	}
	return 0, false
}

func approx(a, b float64) bool { return a-b < 0.002 && b-a < 0.002 }

func TestRestartAndChurnMeasuresTTFMRFromCallLog(t *testing.T) {
	r, dir := runTiny(t, header+oneStrategy+`timeline:
  - {action: restart, mode: crash}
  - {after: 1s, action: churn, kind: mixed, services: 3}
  - {waitFor: steadyState, timeout: 2m}
`)
	s := r.out.Summary
	if !r.invariants.Passed {
		t.Fatalf("invariants: %+v", r.invariants)
	}
	if len(r.input.Restarts) != 1 || len(r.input.Changes) == 0 {
		t.Fatalf("restarts %v changes %d", r.input.Restarts, len(r.input.Changes))
	}
	first, ok := firstApplying(r.input, r.input.Restarts[0].Stopped)
	if !ok || s.TTFMRSeconds == nil {
		t.Fatalf("no applying mutation in the call log (ttfmr %v)", s.TTFMRSeconds)
	}
	if want := first - r.input.Restarts[0].Stopped; !approx(*s.TTFMRSeconds, want) {
		t.Errorf("TTFMR = %.3f, call log says %.3f", *s.TTFMRSeconds, want)
	}
	for _, c := range r.out.Changes {
		if c.AppliedSeconds == nil {
			t.Errorf("change %s never applied", c.ID)
		}
	}
	total := 0
	for i := range r.input.Calls {
		if r.input.Calls[i].Service != fakeaws.ServiceAdmin {
			total++
		}
	}
	if got := s.Metrics()[results.MetricAWSCalls]; int(got) != total {
		t.Errorf("aws calls = %v, call log has %d", got, total)
	}
	if s.SteadyStateSeconds == nil {
		t.Error("steady state never reached")
	}
	if s.K8sWrites.Total() == 0 {
		t.Error("no Kubernetes writes by the controller in the audit log")
	}
	if st, err := os.Stat(filepath.Join(dir, "aws-calls.jsonl")); err != nil || st.Size() == 0 {
		t.Errorf("call log: %v", err)
	}
}

func TestContainerRestartFlipsGates(t *testing.T) {
	r, _ := runTiny(t, header+oneStrategy+`timeline:
  - {action: containerRestart, pods: 2}
  - {waitFor: steadyState, timeout: 2m}
`)
	if !r.invariants.Passed {
		t.Fatalf("invariants: %+v", r.invariants)
	}
	q := r.out.Summary.ReadinessGateFlip
	if q.Count != len(r.input.GateFlips) || q.Count == 0 {
		for _, g := range r.input.GateFlips {
			t.Logf("gated pod %s pending at %.2f, gate True at %v", g.Pod, g.Pending, g.True)
		}
		t.Fatalf("gate flips %+v of %d gated pods", q, len(r.input.GateFlips))
	}
}

func TestAWSDriftIsRepairedAndMeasured(t *testing.T) {
	r, _ := runTiny(t, header+`controller:
  strategies: [{name: none, checkpoint: none, targetHealthCacheTTL: 1s, syncPeriod: 5s}]
timeline:
  - {action: awsDrift, kind: removeTarget, count: 1}
  - {waitFor: steadyState, timeout: 2m}
`)
	if len(r.input.Drifts) != 1 {
		t.Fatalf("drifts: %+v", r.input.Drifts)
	}
	d := r.input.Drifts[0]
	var repaired *float64
	for i := range r.input.Calls {
		c := &r.input.Calls[i]
		if c.Operation == "RegisterTargets" && c.Outcome == fakeaws.OutcomeOK && c.TargetGroupARN == d.TargetGroupARN && r.input.Sec(c) >= d.At {
			for _, tg := range c.Targets {
				if tg.ID == d.Target.ID && repaired == nil {
					v := r.input.Effective(c) - d.At
					repaired = &v
				}
			}
		}
	}
	q := r.out.Summary.DriftRepair
	if repaired == nil || q.Count != 1 || !approx(q.Max, *repaired) {
		t.Fatalf("drift repair %+v, call log says %v", q, repaired)
	}
}

func TestInvariantsCatchARemovedTarget(t *testing.T) {
	testenv.RequireAssets(t)
	sc, err := scenario.Parse("it.yaml", []byte(header+oneStrategy+`timeline:
  - {action: awsDrift, kind: removeTarget, count: 1}
  - {waitFor: steadyState, timeout: 5s}
`))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Scenario: sc, OutDir: t.TempDir(), Stdout: &out, Progress: io.Discard, NoReport: true})
	var v *results.ViolationError
	if !errors.As(err, &v) || v.Kind != results.ViolationInvariant {
		t.Fatalf("err = %v, want an invariant violation", err)
	}
	inv := rep.Results.Strategies[0].Invariants
	if inv.Missing != 1 || len(inv.Violations) == 0 || inv.Violations[0].Kind != "missing-target" || !strings.Contains(inv.Violations[0].TGB, "/") {
		t.Fatalf("invariants = %+v", inv)
	}
	if !strings.Contains(out.String(), "FAIL") {
		t.Errorf("summary does not show the failure:\n%s", out.String())
	}
}

func TestAWSFaultOutageConverges(t *testing.T) {
	r, _ := runTiny(t, header+oneStrategy+`timeline:
  - {action: awsFault, fault: outage, duration: 10s}
  - {action: restart}
  - {action: churn, kind: scale, services: 2}
  - {waitFor: steadyState, timeout: 2m}
`)
	if !r.invariants.Passed {
		t.Fatalf("invariants: %+v", r.invariants)
	}
	failed := 0
	for i := range r.input.Calls {
		if c := &r.input.Calls[i]; c.Outcome == fakeaws.OutcomeError && r.input.Sec(c) < 10 {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no call failed during the outage")
	}
	// The first meaningful mutation cannot land before the outage ends at 10 s.
	ttfmr := r.out.Summary.TTFMRSeconds
	if ttfmr == nil || r.input.Restarts[0].Stopped+*ttfmr < 9.99 {
		t.Errorf("first meaningful mutation at restart %.3f + TTFMR %v, want ≥ 10 s (the outage end)", r.input.Restarts[0].Stopped, ttfmr)
	}
}

func TestLeaderHandover(t *testing.T) {
	r, _ := runTiny(t, strings.Replace(header, "seed: 3", "seed: 4", 1)+`controller:
  replicas: 2
  strategies: [{name: ckpt, checkpoint: annotation}]
timeline:
  - {action: restart, mode: leaderHandover}
  - {action: churn, kind: rotate, services: 2}
  - {waitFor: steadyState, timeout: 2m}
  - {action: restart, mode: crash}
  - {action: churn, kind: rotate, services: 1}
  - {waitFor: steadyState, timeout: 2m}
`)
	if !r.invariants.Passed || r.out.Summary.TTFMRSeconds == nil {
		t.Fatalf("invariants %+v ttfmr %v", r.invariants, r.out.Summary.TTFMRSeconds)
	}
	// Each restart's breakdown: the standby that took over leads, then starts its workers (caches
	// synced), reconciles and applies a change, all after that restart's stop and in order.
	if len(r.out.Restarts) != 2 {
		t.Fatalf("phases of %d restarts, want 2", len(r.out.Restarts))
	}
	for i, ph := range r.out.Restarts {
		steps := []*float64{&ph.StoppedSeconds, ph.LeadingSeconds, ph.CachesSyncedSeconds, ph.FirstAWSCallSeconds, ph.FirstMeaningfulSeconds}
		for k, at := range steps {
			if at == nil {
				t.Errorf("restart %d (%s): step %d unknown: %+v", i+1, ph.Mode, k, ph)
			} else if k > 0 && steps[k-1] != nil && *at < *steps[k-1]-0.05 { // the Lease is polled
				t.Errorf("restart %d (%s): step %d at %.3f s before step %d at %.3f s", i+1, ph.Mode, k, *at, k-1, *steps[k-1])
			}
		}
	}
	if c := r.out.Summary.CacheSyncSeconds; c == nil || *c < 0 {
		t.Errorf("cache sync of the standby that took over: %v", c)
	}
}

func TestExternalController(t *testing.T) {
	testenv.RequireAssets(t)
	bin := filepath.Join(t.TempDir(), "restartsim")
	build := exec.Command("go", "build", "-o", bin, "../cmd/restartsim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the test controller: %v\n%s", err, out)
	}
	r, dir := runTiny(t, strings.Replace(header, "timeScale: 10", "timeScale: 1", 1)+`controller:
  external:
    command: [`+bin+`, controller, "--kubeconfig={{.Kubeconfig}}", "--aws-endpoint={{.AWSEndpoint}}", "--aws-region={{.Region}}",
      "--aws-access-key-id={{.AccessKeyID}}", "--aws-secret-access-key={{.SecretAccessKey}}", "--vpc-id={{.VpcID}}",
      "--metrics-bind-address=127.0.0.1:{{.MetricsPort}}", "--health-probe-bind-address=127.0.0.1:{{.HealthPort}}"]
timeline:
  - {action: restart, mode: crash}
  - {action: churn, kind: rotate, services: 1}
  - {waitFor: steadyState, timeout: 1m}
`)
	if !r.invariants.Passed || r.out.Summary.TTFMRSeconds == nil {
		t.Fatalf("invariants %+v ttfmr %v", r.invariants, r.out.Summary.TTFMRSeconds)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "controller-*.log"))
	if len(logs) != 2 {
		t.Errorf("controller logs: %v, want one per instance (2)", logs)
	}
	// No child outlives the run: each log ends with the exit the sim waited for.
	for _, l := range logs {
		if data, _ := os.ReadFile(l); !strings.Contains(string(data), "[restartsim] controller exited") {
			t.Errorf("%s: the controller had not exited when the run returned", l)
		}
	}
}

// TestResumeAwaitNone crashes the controller, churns during its 5 s downtime (await none) and
// again as the replacement starts: the fast path replays the first churn (newer than the
// watermark) before the replacement's informers start, bindings with networking rules and
// readiness gates included; the invariants (targets, rules, gates, checkpoints) must hold.
func TestResumeAwaitNone(t *testing.T) {
	r, _ := runTiny(t, `apiVersion: restartsim/v1
kind: Scenario
name: it
seed: 5
timeScale: 10
aws: {profile: aws-documented, warmupProfile: unlimited, healthyAfter: 2s, deregistrationDelay: 10s}
fleet: {targetGroupBindings: 20, podsPerService: 2, nodes: 3, readinessGateShare: 0.3, networkingShare: 0.5}
controller:
  strategies: [{name: resume, checkpoint: annotation, resume: true}]
timeline:
  - {action: restart, mode: crash, await: none, downtime: 5s}
  - {after: 500ms, action: churn, kind: mixed, services: 3}
  - {after: 4500ms, action: churn, kind: mixed, services: 3}
  - {waitFor: steadyState, timeout: 2m}
`)
	if !r.invariants.Passed {
		t.Fatalf("invariants: %+v", r.invariants)
	}
	if len(r.input.Restarts) != 1 {
		t.Fatalf("restarts: %+v", r.input.Restarts)
	}
	rs := r.input.Restarts[0]
	if rs.Started < rs.Origin() || rs.At < rs.Started || rs.Downtime < 4.99 {
		t.Errorf("restart: stopped %.3f, downtime %.3f, started %.3f, led %.3f: want them in that order", rs.Stopped, rs.Downtime, rs.Started, rs.At)
	}
	if ev := r.events[0]; ev.Kind != "restart" || ev.EndSeconds != measure.Round3(rs.At) {
		t.Errorf("restart event %+v, want it to end when the new instance led (%.3f)", ev, rs.At)
	}
	if n := r.out.Summary.ResumeReconciles; n == nil || *n == 0 {
		t.Error("the resume fast path reconciled nothing")
	}
	t.Logf("restart %+v, resume reconciles %v, ttfmr %v", rs, *r.out.Summary.ResumeReconciles, deref(r.out.Summary.TTFMRSeconds))
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestReplaceNodeIsApplied replaces two nodes while the controller is down (crash, await none):
// the replacement instance must register each new instance and deregister each old one on every
// instance binding (their checkpoints no longer match the Ready nodes), the harness must see each
// change applied, and the invariants must hold.
func TestReplaceNodeIsApplied(t *testing.T) {
	withInstances := strings.Replace(header, "networkingShare: 0.5}", "networkingShare: 0.5, instanceShare: 0.5}", 1)
	r, _ := runTiny(t, withInstances+oneStrategy+`timeline:
  - {action: restart, mode: crash, await: none, downtime: 3s}
  - {after: 500ms, action: churn, kind: replaceNode, count: 2}
  - {waitFor: steadyState, timeout: 2m}
`)
	if !r.invariants.Passed {
		t.Fatalf("invariants: %+v", r.invariants)
	}
	kinds := map[string]int{}
	for _, c := range r.out.Changes {
		kinds[c.Kind]++
		if c.AppliedSeconds == nil {
			t.Errorf("change %s (%s %s) never applied", c.ID, c.Kind, c.TGB)
		} else if started := r.input.Restarts[0].Started; *c.AppliedSeconds < started {
			t.Errorf("change %s applied at %.3fs, before the replacement started (%.3fs)", c.ID, *c.AppliedSeconds, started)
		}
	}
	// 4 instance bindings, each with a join and a not-ready change per replaced node.
	if kinds[workload.ChangeNodeJoin] != 8 || kinds[workload.ChangeNodeNotReady] != 8 || len(r.out.Changes) != 16 {
		t.Errorf("changes by kind %v, want 8 %s and 8 %s", kinds, workload.ChangeNodeJoin, workload.ChangeNodeNotReady)
	}
	if r.out.Summary.SteadyStateSeconds == nil {
		t.Error("steady state never reached")
	}
}
