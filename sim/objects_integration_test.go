package sim

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// widgetScenario runs the widget controller (widgets_test.go) over 60 Widgets at the documented
// ELB buckets: a crash, 5 health-check-path patches while it is down, 3 more once it leads.
const widgetScenario = `apiVersion: restartsim/v1
kind: Scenario
name: objects-it
seed: 3
cluster: {crds: [%q]}
aws: {profile: aws-documented, warmupProfile: unlimited}
fleet:
  targetGroupBindings: 0
  namespaces: 2
  objects:
    - name: widgets
      count: 60
      template:
        apiVersion: test.restartsim.io/v1
        kind: Widget
        metadata: {name: 'w-{{.Index}}'}
        spec: {name: '{{awsName "w"}}', port: 80, healthCheckPath: /healthz}
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
  - {action: restart, mode: crash, await: none, downtime: 2s}
  - {action: churn, kind: patch, group: widgets, count: 5, patch: {spec: {healthCheckPath: '/v{{.Seq}}'}},
     applied: 'aws != null && aws.healthCheck.path == object.spec.healthCheckPath', mutations: [ModifyTargetGroup]}
  - {waitFor: leader, timeout: 1m}
  - {after: 1s, action: churn, kind: patch, group: widgets, count: 3, patch: {spec: {healthCheckPath: '/w{{.Seq}}'}},
     applied: 'aws != null && aws.healthCheck.path == object.spec.healthCheckPath', mutations: [ModifyTargetGroup]}
  - {waitFor: steadyState, timeout: 3m}
`

// TestObjectGroupPatchesTimedThroughAWSState runs a controller that knows nothing of
// TargetGroupBindings over a group of custom resources: the warm-up must wait for every Widget to
// be Synced, each patch must be timed by when fakeaws's state shows it (and TTFMR by the first
// ModifyTargetGroup of a patched Widget's target group), and the end state must meet the group's
// invariant.
func TestObjectGroupPatchesTimedThroughAWSState(t *testing.T) {
	text := widgetScenarioText(t)
	sc, err := scenario.Parse("objects-it.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	st := runSteady(t, sc, 5*time.Minute)
	if got := st.Summary.Objects.Groups["widgets"]; got != 60 || st.Summary.Objects.TGBs != 0 {
		t.Errorf("objects %+v: want 60 widgets and no bindings", st.Summary.Objects)
	}
	if len(st.Changes) != 8 {
		t.Fatalf("changes %+v: want 8 patches", st.Changes)
	}
	minLatency := 1e9
	for _, c := range st.Changes {
		if !strings.HasPrefix(c.Object, "widgets/") || c.Kind != "patch" || c.LatencySeconds == nil {
			t.Fatalf("change %+v: want a patch of a widget, applied", c)
		}
		minLatency = min(minLatency, *c.LatencySeconds)
	}
	if st.Summary.BlindTime.Count != 5 {
		t.Errorf("blind time %+v: want the 5 changes made while it was down as the restart's (the step after it leads is the next one's)", st.Summary.BlindTime)
	}
	// TTFMR ends at a ModifyTargetGroup call, which the poll of AWS's state sees at most a poll later.
	if s := st.Summary.TTFMRSeconds; s == nil || *s <= 0 {
		t.Errorf("TTFMR %v: want the first ModifyTargetGroup of a patched widget after the restart", s)
	}
}

// TestObjectGroupCreatesAndDeletesTimedThroughAWSState runs the widget controller over 30
// Widgets and, while it is down, makes 3 Widgets and deletes 3: each change must be applied once
// fakeaws's state and the API server show it (a new Widget's target group as its spec says; a
// deleted Widget gone through its finalizer with its target group), and the end state must hold
// the new Widgets to the group's invariant with no target group left of a deleted one.
func TestObjectGroupCreatesAndDeletesTimedThroughAWSState(t *testing.T) {
	text := widgetScenarioText(t)
	text = strings.Replace(text, "count: 60", "count: 30", 1)
	i, j := strings.Index(text, "  - {action: churn"), strings.Index(text, "  - {waitFor: steadyState")
	text = text[:i] + `  - {action: churn, kind: create, group: widgets, count: 3, mutations: [CreateTargetGroup]}
  - {action: churn, kind: delete, group: widgets, count: 3, mutations: [DeleteTargetGroup]}
` + text[j:]
	sc, err := scenario.Parse("objects-lifecycle-it.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	st := runSteady(t, sc, 5*time.Minute)
	kinds := map[string]int{}
	for _, c := range st.Changes {
		if !strings.HasPrefix(c.Object, "widgets/") || c.LatencySeconds == nil {
			t.Fatalf("change %+v: want a change of a widget, applied", c)
		}
		kinds[c.Kind]++
	}
	if kinds["create"] != 3 || kinds["delete"] != 3 || st.Summary.BlindTime.Count != 6 {
		t.Errorf("changes %v, blind time %+v: want 3 creates and 3 deletes, all the restart's", kinds, st.Summary.BlindTime)
	}
	// TTFMR ends at the first CreateTargetGroup or DeleteTargetGroup of a changed widget's resource.
	if s := st.Summary.TTFMRSeconds; s == nil || *s <= 0 {
		t.Errorf("TTFMR %v: want the first create or delete of a changed widget's target group after the restart", s)
	}
}

// runSteady runs sc's one strategy and requires it to end steady with its invariants holding.
func runSteady(t *testing.T, sc *scenario.Scenario, timeout time.Duration) *results.Strategy {
	t.Helper()
	st := &runAll(t, sc, timeout).Strategies[0]
	if !st.Invariants.Passed || st.Summary.SteadyStateSeconds == nil {
		t.Fatalf("invariants %+v, steady state %v: want every object as its spec says, and steady", st.Invariants, st.Summary.SteadyStateSeconds)
	}
	return st
}

// runAll runs sc to the end, and requires every strategy's timeline to have compiled no template
// or CEL expression (the scenario's are compiled before the measured phase).
func runAll(t *testing.T, sc *scenario.Scenario, timeout time.Duration) *results.Results {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var mu sync.Mutex
	var timelines []string
	log := funcr.New(func(_, args string) {
		if strings.Contains(args, `"msg"="timeline done"`) {
			mu.Lock()
			timelines = append(timelines, args)
			mu.Unlock()
		}
	}, funcr.Options{})
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Progress: io.Discard, Stdout: io.Discard, NoReport: true, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, line := range timelines {
		if !strings.Contains(line, `"compiledDuringTimeline"=0`) {
			t.Errorf("a timeline compiled templates or CEL expressions while it was measured: %s", line)
		}
	}
	if len(timelines) < len(rep.Results.Strategies) {
		t.Errorf("%d timelines logged for %d strategies", len(timelines), len(rep.Results.Strategies))
	}
	return rep.Results
}

// A controller that keeps AWS resources (the widget controller with WIDGET_RETAIN=1, as ACK's
// deletion policy retain or external-dns's upsert-only policy) deletes 3 Widgets it never deletes
// the target groups of: the scenario declares the 3 deletes unapplied and the 3 target groups left,
// so the run passes, its invariants holding on the rest and the orphans counted by their kind.
func TestDeclaredLeftoversOfAControllerThatKeepsResources(t *testing.T) {
	text := widgetScenarioText(t)
	text = strings.Replace(text, "count: 60", "count: 20", 1)
	text = strings.Replace(text, `WIDGET_KUBECONFIG:`, `WIDGET_RETAIN: "1", WIDGET_KUBECONFIG:`, 1)
	i := strings.Index(text, "  - {action: churn")
	text = text[:i] + `  - {action: churn, kind: delete, group: widgets, count: 3, mutations: [DeleteTargetGroup]}
  - {waitFor: leader, timeout: 1m}
  - {waitFor: steadyState, timeout: 20s}
thresholds:
  - {metric: unapplied_changes, max: 3}
  - {metric: orphaned_resources, max: 3}
`
	sc, err := scenario.Parse("objects-retain-it.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Progress: io.Discard, Stdout: io.Discard, NoReport: true})
	if err != nil {
		t.Fatalf("%v: want the declared leftovers to pass", err)
	}
	st := rep.Results.Strategies[0]
	if inv := st.Invariants; !inv.Passed || !inv.OrphansExpected || inv.Orphaned["targetGroup"] != 3 || len(inv.Violations) != 0 {
		t.Errorf("invariants %+v: want passed, with 3 orphaned target groups expected", inv)
	}
	if st.Summary.UnappliedChanges != 3 {
		t.Errorf("%d unapplied, want the 3 deletes", st.Summary.UnappliedChanges)
	}
}

// widgetScenarioText is widgetScenario for this machine, once envtest's assets are known to be there.
func widgetScenarioText(t *testing.T) string {
	t.Helper()
	testenv.RequireAssets(t)
	crds, err := filepath.Abs("objects/testdata/crds/widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(widgetScenario, crds, os.Args[0], widgetControllerEnv)
}
