package objects

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestCompilePatchRefusesBadPatches(t *testing.T) {
	f := compile(t, widgets(3))
	good := Patch{Group: "widgets", Merge: json.RawMessage(`{"spec": {"healthCheckPath": "/v{{.Seq}}"}}`),
		Applied: "aws != null && aws.healthCheck.path == object.spec.healthCheckPath", Mutations: []string{"ModifyTargetGroup"}}
	if _, err := f.CompilePatch(good, "timeline[2]"); err != nil {
		t.Fatalf("a good patch: %v", err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Patch)
		path  string
		frags []string
	}{
		{"unknown group", func(p *Patch) { p.Group = "lbs" }, "timeline[2].group", []string{`unknown group "lbs"`}},
		{"no merge", func(p *Patch) { p.Merge = nil }, "timeline[2].merge", []string{"required"}},
		{"merge not an object", func(p *Patch) { p.Merge = json.RawMessage(`"x"`) }, "timeline[2].merge", []string{"must be an object"}},
		{"rename", func(p *Patch) { p.Merge = json.RawMessage(`{"metadata": {"name": "x"}}`) }, "timeline[2].merge.metadata.name", []string{"cannot rename"}},
		{"kind", func(p *Patch) { p.Merge = json.RawMessage(`{"kind": "Gadget"}`) }, "timeline[2].merge.kind", []string{"cannot change"}},
		{"malformed", func(p *Patch) { p.Merge = json.RawMessage(`{"spec": {"healthCheckPath": "{{.Seq"}}`) }, "timeline[2].merge.spec.healthCheckPath", []string{"malformed"}},
		{"bad field", func(p *Patch) { p.Merge = json.RawMessage(`{"spec": {"healthCheckPath": "{{.Sequence}}"}}`) }, "timeline[2].merge",
			[]string{"can't evaluate field Sequence"}},
		{"ref unknown group", func(p *Patch) { p.Merge = json.RawMessage(`{"spec": {"name": "{{ref \"x\" 0}}"}}`) }, "timeline[2].merge.spec.name",
			[]string{`unknown group "x"`}},
		{"no applied", func(p *Patch) { p.Applied = "" }, "timeline[2].applied", []string{"required"}},
		{"applied unknown field", func(p *Patch) { p.Applied = "object.spec.path == aws.healthCheck.path" }, "timeline[2].applied",
			[]string{"refers to an unknown field 'path'"}},
		{"applied not bool", func(p *Patch) { p.Applied = "object.spec.name" }, "timeline[2].applied", []string{"must be a bool expression"}},
		{"empty mutation", func(p *Patch) { p.Mutations = []string{"ModifyTargetGroup", ""} }, "timeline[2].mutations[1]", []string{"empty"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good
			tc.edit(&p)
			_, err := f.CompilePatch(p, "timeline[2]")
			wantError(t, err, tc.path, tc.frags...)
		})
	}
}

func TestChooseIsDeterministicAndDistinct(t *testing.T) {
	f := compile(t, widgets(1000))
	pt, err := f.CompilePatch(Patch{Group: "widgets", Merge: json.RawMessage(`{"spec": {"port": 1}}`), Applied: "true"}, "p")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := pt.Choose(rand.New(rand.NewPCG(1, 2)), 50)
	b, _ := pt.Choose(rand.New(rand.NewPCG(1, 2)), 50)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different choices: %v and %v", a, b)
	}
	if len(slices.Compact(slices.Clone(a))) != 50 || a[0] < 0 || a[49] >= 1000 || !slices.IsSorted(a) {
		t.Errorf("choice %v: want 50 distinct sorted indexes below 1000", a)
	}
	all, _ := pt.Choose(rand.New(rand.NewPCG(3, 4)), 1000)
	if len(slices.Compact(all)) != 1000 {
		t.Errorf("choosing all 1000 gave %d distinct", len(slices.Compact(all)))
	}
	for _, n := range []int{0, 1001} {
		if _, err := pt.Choose(rand.New(rand.NewPCG(1, 2)), n); err == nil {
			t.Errorf("Choose(%d) of 1000: no error", n)
		}
	}
}

func TestApplyPatchesChosenObjects(t *testing.T) {
	ctx := context.Background()
	cms := Group{Name: "cms", Count: 10, AWS: &AWSRef{Kind: AWSTargetGroup, Name: "object.data.tg"},
		Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm-{{.Index}}"}, "data": {"tg": "{{awsName \"cm\"}}", "path": "/"}}`)}
	f := compile(t, cms)
	c := fake.NewClientBuilder().Build()
	if err := createAll(ctx, f, c, testEnv, CreateOptions{Concurrency: 3}); err != nil {
		t.Fatal(err)
	}
	if err := createAll(ctx, f, c, testEnv, CreateOptions{}); err != nil {
		t.Fatalf("creating again (objects exist): %v", err)
	}
	pt, err := f.CompilePatch(Patch{Group: "cms", Merge: json.RawMessage(`{"data": {"path": "/v{{.Seq}}-{{.Index}}"}}`),
		Applied: "aws != null && aws.healthCheck.path == object.data.path", Mutations: []string{"ModifyTargetGroup"}}, "timeline[0]")
	if err != nil {
		t.Fatal(err)
	}
	var tgs []fakeaws.TargetGroup
	for i := range 10 {
		name, _ := AWSName("cm", testEnv.RunID, "cms", i)
		tgs = append(tgs, fakeaws.TargetGroup{ARN: "arn:" + name, Name: name, HealthCheck: fakeaws.HealthCheck{Path: "/"}})
	}
	state := &fakeState{tgs: tgs}
	changes, err := pt.Apply(ctx, c, testEnv, PatchOptions{Count: 3, Rand: rand.New(rand.NewPCG(7, 7)), FirstSeq: 100, AWS: state})
	if err != nil || len(changes) != 3 {
		t.Fatalf("Apply: %d changes, %v", len(changes), err)
	}
	for i, ch := range changes {
		want := "/v" + itoa(100+i) + "-" + itoa(ch.Index)
		if ch.Seq != 100+i || ch.Desired.Object["data"].(map[string]any)["path"] != want {
			t.Errorf("change %d: seq %d, desired %v; want seq %d and path %s", i, ch.Seq, ch.Desired.Object["data"], 100+i, want)
		}
		key, _ := f.Key(testEnv, "cms", ch.Index)
		if ch.Key != key || ch.ResourceID != tgs[ch.Index].ARN {
			t.Errorf("change %d: key %v ARN %q, want %v and %s", i, ch.Key, ch.ResourceID, key, tgs[ch.Index].ARN)
		}
		snap, _ := TakeSnapshot(state)
		if ok, err := ch.Applied(snap); ok || err != nil {
			t.Errorf("change %d applied before AWS shows it (%v)", i, err)
		}
		// AWS takes the change.
		state.tgs[ch.Index].HealthCheck.Path = want
		snap, _ = TakeSnapshot(state)
		if ok, err := ch.Applied(snap); !ok || err != nil {
			t.Errorf("change %d not applied once AWS shows it: %v (%s)", i, err, ch.Explain(snap))
		}
		mutation := fakeaws.Call{Operation: "ModifyTargetGroup", Outcome: fakeaws.OutcomeOK, TargetGroupARN: ch.ResourceID}
		if !ch.IsMutation(mutation) {
			t.Errorf("change %d: %+v is not its mutation", i, mutation)
		}
		for _, other := range []fakeaws.Call{
			{Operation: "ModifyTargetGroup", Outcome: fakeaws.OutcomeThrottled, TargetGroupARN: ch.ResourceID},
			{Operation: "DescribeTargetGroups", Outcome: fakeaws.OutcomeOK, TargetGroupARN: ch.ResourceID},
			{Operation: "ModifyTargetGroup", Outcome: fakeaws.OutcomeOK, TargetGroupARN: "arn:other"},
		} {
			if ch.IsMutation(other) {
				t.Errorf("change %d: %+v counts as its mutation", i, other)
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
