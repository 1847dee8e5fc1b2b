package sim

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// lbcScenario is a small LBC run: 50 bindings, a crash whose downtime strips the checkpoints
// (LBC restarts as if it had never saved one), changes during the downtime and once the
// replacement holds the Lease.
const lbcScenario = `apiVersion: restartsim/v1
kind: Scenario
name: lbc-it
seed: 5
cluster: {crds: ["${LBC_CRDS}"]}
aws: {profile: aws-documented, warmupProfile: unlimited, healthyAfter: 2s, deregistrationDelay: 10s}
fleet: {targetGroupBindings: 50, podsPerService: 2, networkingShare: 0.1}
controller:
  strategies:
    - name: lbc
` + lbcExternal + `timeline:
  - {action: restart, mode: crash, await: none, downtime: 3s, stripCheckpoints: true}
  - {after: 1s, action: churn, kind: mixed, services: 3}
  - {waitFor: leader, timeout: 2m}
  - {after: 1s, action: churn, kind: mixed, services: 3}
  - {waitFor: steadyState, timeout: 3m}
`

// lbcExternal is the external block of a strategy (under "    - name: …") that runs LBC_BINARY
// with its default flags.
const lbcExternal = `      external:
        command: ["${LBC_BINARY}", "--kubeconfig={{.Kubeconfig}}", "--cluster-name={{.ClusterName}}", "--aws-region={{.Region}}",
          "--aws-vpc-id={{.VpcID}}", "--leader-election-namespace={{.Namespace}}", "--metrics-bind-addr=127.0.0.1:{{.MetricsPort}}",
          "--health-probe-bind-addr=127.0.0.1:{{.HealthPort}}", "--webhook-bind-port={{.Port}}", "--webhook-cert-dir={{.CertDir}}"]
        lease: {name: aws-load-balancer-controller-leader}
        cacheSyncedLog: 'Starting workers.*"controller":"targetGroupBinding"'
        queueDepth: {metric: workqueue_depth, labels: {name: targetGroupBinding}}
        deferredQueueDepth: {metric: workqueue_depth, labels: {name: deferredTGBQueue}}
`

// lbcPaths resolves LBC_BINARY and LBC_CRDS (default: crds beside the binary); relative paths are
// taken from the repository root, as the scenarios take them.
func lbcPaths(t *testing.T) {
	t.Helper()
	bin := os.Getenv("LBC_BINARY")
	if bin == "" {
		t.Skip("LBC_BINARY not set: point it at an AWS Load Balancer Controller build (e.g. LBC_BINARY=../shared/lbc/lbc, with LBC_CRDS its config/crd/bases) to run LBC on envtest")
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join("..", p) // the package directory is sim/
	}
	crds := os.Getenv("LBC_CRDS")
	if crds == "" {
		crds = filepath.Join(filepath.Dir(bin), "crds")
	}
	for _, p := range []*string{&bin, &crds} {
		a, err := filepath.Abs(abs(*p))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(a); err != nil {
			t.Fatalf("LBC_BINARY/LBC_CRDS: %v", err)
		}
		*p = a
	}
	t.Setenv("LBC_BINARY", bin)
	t.Setenv("LBC_CRDS", crds)
}

// runLBC runs the scenario text (named name) with LBC_BINARY and LBC_CRDS, skipping without them or
// without envtest assets, and returns its one strategy's results.
func runLBC(t *testing.T, name, text string, timeout time.Duration) *results.Strategy {
	t.Helper()
	lbcPaths(t)
	return runSelected(t, name, text, nil, timeout)
}

// runSelected runs the named strategies (all when none) of the scenario text (named name), skipping
// without envtest assets, and returns the first one's results.
func runSelected(t *testing.T, name, text string, strategies []string, timeout time.Duration) *results.Strategy {
	t.Helper()
	testenv.RequireAssets(t)
	sc, err := scenario.Parse(name, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, Strategies: strategies, OutDir: t.TempDir(), Progress: io.Discard, Stdout: io.Discard, NoReport: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(strategies) > 0 && len(rep.Results.Strategies) != len(strategies) {
		t.Fatalf("%d strategies in the results, want the %d selected", len(rep.Results.Strategies), len(strategies))
	}
	return &rep.Results.Strategies[0]
}

// TestLBCRestart runs the unmodified LBC through a crash restart with leader election: the
// replacement must wait for the crashed leader's Lease (15 s by controller-runtime's defaults),
// the harness must time its lead by the Lease, and the fleet (networking bindings included) must
// end converged with its checkpoints stripped at the restart.
func TestLBCRestart(t *testing.T) {
	st := runLBC(t, "lbc-it.yaml", lbcScenario, 4*time.Minute)
	if !st.Invariants.Passed {
		t.Fatalf("invariants: %+v", st.Invariants)
	}
	var restart, strip bool
	for _, ev := range st.Events {
		switch ev.Kind {
		case "restart":
			restart = true
			// Stopped at AtSeconds, replaced 3 s later, leads once the old Lease (15 s) expired.
			if lead := ev.EndSeconds - ev.AtSeconds; lead < 10 {
				t.Errorf("the new instance led %.1fs after the crash, want the Lease's expiry (over 10 s)", lead)
			}
		case "stripCheckpoints":
			strip = true
			if ev.Detail != "50 bindings" {
				t.Errorf("stripCheckpoints %q, want every binding (50)", ev.Detail)
			}
		}
	}
	if !restart || !strip {
		t.Errorf("events %+v: want a restart and a stripCheckpoints", st.Events)
	}
	if s := st.Summary; s.TTFMRSeconds == nil || s.CacheSyncSeconds == nil {
		t.Errorf("ttfmr %v, cache sync %v: want both measured", s.TTFMRSeconds, s.CacheSyncSeconds)
	}
	if v := st.Config["version"]; !strings.HasPrefix(v, "v") {
		t.Errorf("version %q, want LBC's logged GitVersion", v)
	}
}

// lbcIngressScenario runs the unmodified LBC's Ingress and Service controllers: 4 Ingresses in 2
// ALB groups (HTTPS and OIDC among them) and an NLB Service, a crash, and while LBC is down a
// change to each input an Ingress's model reads. WAF, WAFv2 and Shield are off: fakeaws serves
// ELBv2 and EC2 only.
const lbcIngressScenario = `apiVersion: restartsim/v1
kind: Scenario
name: lbc-ingress-it
seed: 19
cluster: {crds: ["${LBC_CRDS}"]}
aws: {profile: aws-documented, warmupProfile: unlimited, healthyAfter: 2s, deregistrationDelay: 10s}
fleet:
  targetGroupBindings: 2
  podsPerService: 2
  ingresses: {count: 4, groupSize: 2, tlsShare: 0.5, oidcShare: 0.5, servicesPerIngress: 2, loadBalancerServices: 1}
controller:
  strategies:
    - name: lbc
      external:
        command: ["${LBC_BINARY}", "--kubeconfig={{.Kubeconfig}}", "--cluster-name={{.ClusterName}}", "--aws-region={{.Region}}",
          "--aws-vpc-id={{.VpcID}}", "--leader-election-namespace={{.Namespace}}", "--metrics-bind-addr=127.0.0.1:{{.MetricsPort}}",
          "--health-probe-bind-addr=127.0.0.1:{{.HealthPort}}", "--webhook-bind-port={{.Port}}", "--webhook-cert-dir={{.CertDir}}",
          "--enable-waf=false", "--enable-wafv2=false", "--enable-shield=false"]
        lease: {name: aws-load-balancer-controller-leader}
        cacheSyncedLog: 'Starting workers.*"controller":"ingress"'
timeline:
  - {action: restart, mode: crash, await: none, downtime: 3s}
  - {action: churn, kind: ingressRule, services: 1}
  - {action: churn, kind: ingressAnnotation, services: 1}
  - {action: churn, kind: backendPort, services: 1}
  - {action: churn, kind: backendTargetPort, services: 1}
  - {action: churn, kind: secretContent, services: 1}
  - {waitFor: leader, timeout: 2m}
  - {waitFor: steadyState, timeout: 3m}
`

// TestLBCIngressRestart runs LBC's own Ingress and Service controllers against fakeaws: they must
// deploy the fleet's ALBs and NLB as the harness's model of them says (the load balancer invariant
// finds LBC's resources by its tags), and apply every change made while LBC was down, each seen in
// AWS and timed from the replacement's start.
func TestLBCIngressRestart(t *testing.T) {
	st := runLBC(t, "lbc-ingress-it.yaml", lbcIngressScenario, 5*time.Minute)
	if !st.Invariants.Passed || st.Summary.SteadyStateSeconds == nil {
		t.Fatalf("invariants %+v, steady state %v: want LBC's stacks as modelled and steady", st.Invariants, st.Summary.SteadyStateSeconds)
	}
	if len(st.Changes) != 5 || st.Summary.BlindTime.Count != 5 {
		t.Fatalf("changes %+v, blind time %+v: want all five applied, as the restart's", st.Changes, st.Summary.BlindTime)
	}
	for _, c := range st.Changes {
		if c.Ingress == "" || c.LatencySeconds == nil {
			t.Errorf("change %+v: want an Ingress change with a latency", c)
		}
	}
}
