package actions

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/sim/objects"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// configMaps is a scenario with a group of ConfigMaps and a patch, a create and a delete of it.
const configMaps = `apiVersion: restartsim/v1
kind: Scenario
name: actions
fleet:
  targetGroupBindings: 0
  objects:
    - name: cms
      count: 4
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: 'cm-{{.Index}}'}, data: {v: "0"}}
controller: {strategies: [{name: a}]}
timeline:
  - {action: churn, kind: patch, group: cms, count: 2, patch: {data: {v: '{{.Seq}}'}}, applied: 'object.data.v != "0"'}
  - {action: churn, kind: create, group: cms, count: 1}
  - {action: churn, kind: delete, group: cms, count: 3}
`

// Object churn applies the steps compiled with the scenario, compiling nothing as it runs, and
// records one change per object at the scenario second the step started.
func TestObjectChurnAppliesTheCompiledSteps(t *testing.T) {
	sc, err := scenario.Parse("actions.yaml", []byte(configMaps))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, sc, workload.Spec{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing is polled: the test reads what was recorded
	compiled, err := sc.Objects()
	if err != nil {
		t.Fatal(err)
	}
	env := objects.Env{RunID: "t", Region: "us-west-2", Namespaces: []string{"default"}}
	if err := compiled.Fleet.CreateGroup(context.Background(), r.k8s, env, "cms", objects.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.ex.objects = &ObjectDeps{Fleet: compiled.Fleet, Churn: compiled.Churn, Env: env}
	r.ex.objApplied = observe.StartObjectsApplied(ctx, nil, time.Second)
	before := objects.Compilations()
	for i, st := range sc.Timeline {
		if st.Action == "" {
			continue // the waitFor the defaults end a timeline with
		}
		r.wall.Step(time.Second)
		if err := r.ex.Do(context.Background(), i, st); err != nil {
			t.Fatalf("timeline[%d] %s: %v", i, st.Kind, err)
		}
	}
	if n := objects.Compilations() - before; n != 0 {
		t.Errorf("the steps compiled %d templates or expressions as they ran, want none", n)
	}
	got := map[string][]float64{}
	for _, c := range r.ex.changes {
		got[c.Kind] = append(got[c.Kind], c.At)
	}
	if len(got["patch"]) != 2 || got["patch"][0] != 10 || len(got["create"]) != 1 || got["create"][0] != 20 || len(got["delete"]) != 3 || got["delete"][0] != 30 {
		t.Errorf("changes at %v, want 2 patches at 10s, a create at 20s and 3 deletes at 30s", got)
	}
	if n := compiled.Fleet.Members("cms"); n != 2 {
		t.Errorf("the group has %d members, want 4 + 1 - 3", n)
	}
	if again, _ := sc.Objects(); again.Fleet.Members("cms") != 4 {
		t.Errorf("the next run's group starts with %d members, want its count, 4", again.Fleet.Members("cms"))
	}
	err = r.ex.Do(context.Background(), 7, scenario.Step{Action: scenario.ActionChurn, Kind: scenario.ChurnPatch, Group: "cms", Count: 1})
	if err == nil || !strings.Contains(err.Error(), "timeline[7] was not compiled") {
		t.Errorf("a step the scenario did not compile: error %v", err)
	}
}
