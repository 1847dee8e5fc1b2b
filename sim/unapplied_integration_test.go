package sim

import (
	"context"
	"errors"
	"fmt"
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

// unappliedScenario runs the widget controller (widgets_test.go) over two groups of 10 Widgets: a
// crash, then while it is down 2 health-check-path patches of widgets it applies and 2 of gadgets
// whose applied condition never holds (a change the controller never applies, as ACK never
// applies a TargetGroup's tag change); distinct groups, so no patch supersedes another.
// The steady-state wait can never end; it times out and the run ends. %s is extra scenario text.
const unappliedScenario = `apiVersion: restartsim/v1
kind: Scenario
name: unapplied-it
seed: 5
cluster: {crds: [%q]}
aws: {profile: aws-documented, warmupProfile: unlimited}
fleet:
  targetGroupBindings: 0
  objects:
    - name: widgets
      count: 10
      template:
        apiVersion: test.restartsim.io/v1
        kind: Widget
        metadata: {name: 'w-{{.Index}}'}
        spec: {name: '{{awsName "w"}}', port: 80, healthCheckPath: /healthz}
      ready: 'has(object.status.conditions) && object.status.conditions.exists(c, c.type == "Synced" && c.status == "True")'
      aws: {kind: targetGroup, arn: object.status.arn}
      invariant: 'aws != null && aws.healthCheck.path == object.spec.healthCheckPath'
    - name: gadgets
      count: 10
      template:
        apiVersion: test.restartsim.io/v1
        kind: Widget
        metadata: {name: 'g-{{.Index}}'}
        spec: {name: '{{awsName "g"}}', port: 80, healthCheckPath: /healthz}
      ready: 'has(object.status.conditions) && object.status.conditions.exists(c, c.type == "Synced" && c.status == "True")'
      aws: {kind: targetGroup, arn: object.status.arn}
      invariant: 'aws != null && aws.healthCheck.path == object.spec.healthCheckPath'
controller:
  strategies:
    - name: widgets
      external:
        command: [%q]
        env: {%s: "1", WIDGET_KUBECONFIG: "{{.Kubeconfig}}", WIDGET_VPC_ID: "{{.VpcID}}", WIDGET_METRICS: "127.0.0.1:{{.MetricsPort}}"}
timeline:
  - {action: restart, mode: crash, await: none, downtime: 1s}
  - {action: churn, kind: patch, group: widgets, count: 2, patch: {spec: {healthCheckPath: '/v{{.Seq}}'}},
     applied: 'aws != null && aws.healthCheck.path == object.spec.healthCheckPath', mutations: [ModifyTargetGroup]}
  - {action: churn, kind: patch, group: gadgets, count: 2, patch: {spec: {healthCheckPath: '/x{{.Seq}}'}},
     applied: 'aws != null && aws.healthCheck.path == "/never"', mutations: [AddTags]}
  - {waitFor: leader, timeout: 1m}
  - {waitFor: steadyState, timeout: 15s}
%s`

func runUnapplied(t *testing.T, extra string) (*results.Results, error) {
	t.Helper()
	crds, err := filepath.Abs("objects/testdata/crds/widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("unapplied-it.yaml", []byte(fmt.Sprintf(unappliedScenario, crds, os.Args[0], widgetControllerEnv, extra)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Progress: io.Discard, Stdout: io.Discard, NoReport: true})
	if rep == nil {
		t.Fatalf("the run did not complete: %v", err)
	}
	return rep.Results, err
}

// A change the controller never applies ends the run listed as unapplied, censored in the blind
// time, and as a controller finding (a ViolationUnapplied: simulate exits 3), though every
// invariant holds; declared as expected, the same run passes.
func TestUnappliedChangeFailsTheRunUnlessExpected(t *testing.T) {
	testenv.RequireAssets(t)
	res, err := runUnapplied(t, "")
	var v *results.ViolationError
	if !errors.As(err, &v) || v.Kind != results.ViolationUnapplied || !strings.Contains(err.Error(), "widgets: 2 changes never applied") {
		t.Fatalf("run error %v, want a finding: 2 changes never applied", err)
	}
	st := &res.Strategies[0]
	if !st.Invariants.Passed || st.Summary.UnappliedChanges != 2 || len(st.Unapplied) != 2 {
		t.Fatalf("invariants %+v, unapplied %d %+v: want the invariants holding and the 2 changes listed", st.Invariants, st.Summary.UnappliedChanges, st.Unapplied)
	}
	for _, u := range st.Unapplied {
		if !strings.HasPrefix(u.Object, "gadgets/") || u.Kind != "patch" || u.CensoredSeconds < 15 || u.NotAppliedAfterSeconds <= 0 {
			t.Errorf("unapplied %+v: want a gadget's patch, censored at the run's end", u)
		}
	}
	if b := st.Summary.BlindTime; b.Count != 4 || b.Censored != 2 || !b.P95Censored || !b.MaxCensored || b.P95 < 10 {
		t.Errorf("blind time %+v: want 4 changes, the 2 never applied censored at the run's end and reaching p95", b)
	}

	res, err = runUnapplied(t, "thresholds:\n  - {metric: unapplied_changes, max: 2}\n")
	if err != nil {
		t.Fatalf("declared as expected: %v, want the run to pass", err)
	}
	st = &res.Strategies[0]
	if len(st.Unapplied) != 2 || len(st.Thresholds) != 1 || !st.Thresholds[0].Passed || st.Thresholds[0].Value != 2 {
		t.Errorf("declared: unapplied %+v, thresholds %+v; want both changes listed and the threshold passed at 2", st.Unapplied, st.Thresholds)
	}
}
