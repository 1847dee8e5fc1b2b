package objects

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/restartsim/restartsim/fakeaws"
)

// tgConfigMaps is a group of ConfigMaps, each standing for the target group data.tg names.
func tgConfigMaps(n int) Group {
	return Group{Name: "cms", Count: n, AWS: &AWSRef{Kind: AWSTargetGroup, Name: "object.data.tg"}, Invariant: "aws != null",
		Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm-{{.Index}}"}, "data": {"tg": "{{awsName \"cm\"}}"}}`)}
}

// tgsOf is a target group for every object's data.tg.
func tgsOf(objs []*unstructured.Unstructured) []fakeaws.TargetGroup {
	var out []fakeaws.TargetGroup
	for _, o := range objs {
		name := o.Object["data"].(map[string]any)["tg"].(string)
		out = append(out, fakeaws.TargetGroup{ARN: "arn:" + name, Name: name})
	}
	return out
}

// observe lists the fleet's objects in testEnv's namespaces and snapshots state with them.
func observe(t *testing.T, f *CompiledGroups, c client.Reader, state AWSState) ([]*unstructured.Unstructured, *Snapshot) {
	t.Helper()
	return observeIn(t, f, c, testEnv, state)
}

func observeIn(t *testing.T, f *CompiledGroups, c client.Reader, env Env, state AWSState) ([]*unstructured.Unstructured, *Snapshot) {
	t.Helper()
	objs, err := listObjects(context.Background(), f, c, env)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := TakeSnapshot(state)
	if err != nil {
		t.Fatal(err)
	}
	return objs, snap.WithObjects(f.IndexObjects(objs))
}

func TestCreateMakesNewIndexesThatJoinTheGroup(t *testing.T) {
	ctx := context.Background()
	f := compile(t, tgConfigMaps(3))
	c := fake.NewClientBuilder().Build()
	if err := createAll(ctx, f, c, testEnv, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cr, err := f.CompileCreate(Create{Group: "cms", Mutations: []string{"CreateTargetGroup"}}, "timeline[1]", nil)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := cr.Apply(ctx, c, testEnv, ChurnOptions{Count: 2, FirstSeq: 7})
	if err != nil || len(changes) != 2 {
		t.Fatalf("Apply: %d changes, %v", len(changes), err)
	}
	for i, ch := range changes {
		if ch.Index != 3+i || ch.Key.Name != "cm-"+itoa(3+i) || ch.Seq != 7+i || ch.Kind != ChangeCreate {
			t.Errorf("change %d: %+v; want index %d, cm-%d, seq %d", i, ch, 3+i, 3+i, 7+i)
		}
	}
	if n := f.Members("cms"); n != 5 {
		t.Errorf("members %d, want 5", n)
	}
	state := &fakeState{}
	objs, snap := observe(t, f, c, state)
	if st := f.Check(objs, snap); st.Groups[0].Count != 5 || st.Groups[0].Present != 5 || len(st.Violations) != 5 {
		t.Fatalf("status %+v with %d violations; want 5 objects, every invariant false", st.Groups[0], len(st.Violations))
	}
	if ok, err := changes[0].Applied(snap); ok || err != nil {
		t.Errorf("create applied before AWS holds its target group (%v)", err)
	}
	if _, err := changes[0].Applied(&Snapshot{}); err == nil {
		t.Error("a create judged without the objects: no error")
	}

	state.tgs = tgsOf(objs)
	if names := map[string]bool{}; true {
		for _, tg := range state.tgs {
			if names[tg.Name] {
				t.Errorf("awsName %s repeats", tg.Name)
			}
			names[tg.Name] = true
		}
	}
	objs, snap = observe(t, f, c, state)
	for _, ch := range changes {
		if ok, err := ch.Applied(snap); !ok {
			t.Errorf("create %s not applied once its invariant holds: %v (%s)", ch.Key, err, ch.Explain(snap))
		}
		if arn := ch.ResolveResourceID(snap); arn != "arn:"+ch.Desired.Object["data"].(map[string]any)["tg"].(string) {
			t.Errorf("create %s resolves ARN %q", ch.Key, arn)
		}
	}
	if st := f.Check(objs, snap); !st.Holds() {
		t.Errorf("steady state with every target group: %+v %v", st.Groups[0], st.Violations)
	}

	// An Applied of its own replaces the group's conditions.
	cr, err = f.CompileCreate(Create{Group: "cms", Applied: `aws != null && aws.port == 81`}, "timeline[2]", nil)
	if err != nil {
		t.Fatal(err)
	}
	more, err := cr.Apply(ctx, c, testEnv, ChurnOptions{Count: 1})
	if err != nil || more[0].Index != 5 {
		t.Fatalf("second create: %v, %v", more, err)
	}
	objs, _ = observe(t, f, c, state)
	state.tgs = tgsOf(objs)
	_, snap = observe(t, f, c, state)
	if ok, _ := more[0].Applied(snap); ok {
		t.Error("create applied though its own condition (port 81) is false")
	}
}

func TestDeleteLeavesTheGroupAndIsAppliedWhenGone(t *testing.T) {
	ctx := context.Background()
	f := compile(t, tgConfigMaps(6))
	c := fake.NewClientBuilder().Build()
	if err := createAll(ctx, f, c, testEnv, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	objs, _ := observe(t, f, c, &fakeState{})
	state := &fakeState{tgs: tgsOf(objs)}
	// One object keeps a finalizer, as a controller's until it deleted the resource.
	held := objs[0]
	held.SetFinalizers([]string{"example.com/cleanup"})
	if err := c.Update(ctx, held); err != nil {
		t.Fatal(err)
	}
	dl, err := f.CompileDelete(Delete{Group: "cms", Mutations: []string{"DeleteTargetGroup"}}, "timeline[1]")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	var changes []*ObjectChange
	for len(changes) < 6 && !containsKey(changes, held.GetName()) {
		more, err := dl.Apply(ctx, c, testEnv, ChurnOptions{Count: 1, Rand: rng, FirstSeq: len(changes) + 1, AWS: state})
		if err != nil {
			t.Fatal(err)
		}
		changes = append(changes, more...)
	}
	if n := f.Members("cms"); n != 6-len(changes) {
		t.Errorf("members %d after %d deletes", n, len(changes))
	}
	if _, err := dl.Apply(ctx, c, testEnv, ChurnOptions{Count: 7, Rand: rng}); err == nil {
		t.Error("deleting more objects than the group has: no error")
	}
	objs, snap := observe(t, f, c, state)
	st := f.Check(objs, snap)
	if st.Groups[0].Count != 6-len(changes) || st.Groups[0].Present != 6-len(changes) {
		t.Errorf("status %+v after %d deletes", st.Groups[0], len(changes))
	}
	if len(st.Violations) != len(changes) {
		t.Errorf("violations %v; want one per deleted object (its target group is left)", st.Violations)
	}
	for _, v := range st.Violations {
		if want := AWSTargetGroup; v.Key.Name == held.GetName() && v.Orphan != "" || v.Key.Name != held.GetName() && v.Orphan != want {
			t.Errorf("violation %v names orphan %q, want %q: the check counts leftovers by their AWS kind", v, v.Orphan, AWSTargetGroup)
		}
	}
	for _, ch := range changes {
		if ch.ResourceID == "" {
			t.Errorf("delete of %s: no ARN", ch.Key)
		}
		if ok, _ := ch.Applied(snap); ok {
			t.Errorf("delete of %s applied while AWS holds its target group", ch.Key)
		}
	}

	// AWS deletes every target group of a deleted object; the one with a finalizer still exists.
	state.tgs = withoutTGsOf(state.tgs, changes)
	objs, snap = observe(t, f, c, state)
	st = f.Check(objs, snap)
	if len(st.Violations) != 1 || !strings.Contains(st.Violations[0].Message, "still exists") || st.Violations[0].Orphan != "" {
		t.Errorf("violations %v; want the object its finalizer holds", st.Violations)
	}
	for _, ch := range changes {
		ok, _ := ch.Applied(snap)
		if want := ch.Key.Name != held.GetName(); ok != want {
			t.Errorf("delete of %s applied = %v, want %v (%s)", ch.Key, ok, want, ch.Explain(snap))
		}
	}
	if err := c.Patch(ctx, held, client.RawPatch(k8stypes.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))); err != nil {
		t.Fatal(err)
	}
	objs, snap = observe(t, f, c, state)
	if st := f.Check(objs, snap); !st.Holds() {
		t.Errorf("steady state once every deleted object is gone: %v", st.Violations)
	}
	// Patches choose among the objects left.
	pt, err := f.CompilePatch(Patch{Group: "cms", Merge: json.RawMessage(`{"data": {"x": "y"}}`), Applied: "true"}, "timeline[2]")
	if err != nil {
		t.Fatal(err)
	}
	left, err := pt.Choose(rand.New(rand.NewPCG(2, 2)), f.Members("cms"))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range left {
		if f.byName["cms"].members.wasDeleted(i) != nil {
			t.Errorf("patch chose deleted object %d", i)
		}
	}
}

func containsKey(changes []*ObjectChange, name string) bool {
	for _, ch := range changes {
		if ch.Key.Name == name {
			return true
		}
	}
	return false
}

func withoutTGsOf(tgs []fakeaws.TargetGroup, deleted []*ObjectChange) []fakeaws.TargetGroup {
	var out []fakeaws.TargetGroup
	for _, tg := range tgs {
		if !containsARN(deleted, tg.ARN) {
			out = append(out, tg)
		}
	}
	return out
}

func containsARN(changes []*ObjectChange, arn string) bool {
	for _, ch := range changes {
		if ch.ResourceID == arn {
			return true
		}
	}
	return false
}

func TestCompileLifecycleErrors(t *testing.T) {
	lbs := Group{Name: "lbs", Count: 2, Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "lb-{{.Index}}"}}`)}
	listeners := Group{Name: "listeners", Count: 2, Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap",
	  "metadata": {"name": "l-{{.Index}}"}, "data": {"lb": "{{ref \"lbs\" .Index}}"}}`)}
	f := compile(t, lbs, listeners)
	_, err := f.CompileCreate(Create{Group: "nosuch"}, "timeline[1]", nil)
	wantError(t, err, "timeline[1].group", `unknown group "nosuch"`)
	_, err = f.CompileDelete(Delete{Group: "nosuch", Mutations: []string{""}}, "timeline[2]")
	wantError(t, err, "timeline[2].group", `unknown group "nosuch"`)
	wantError(t, err, "timeline[2].mutations[0]", "empty operation name")
	_, err = f.CompileCreate(Create{Group: "lbs", Applied: "1 + 1"}, "timeline[3]", nil)
	wantError(t, err, "timeline[3].applied", "must be a bool expression")
	// A listener made beyond the load balancers refers to one that does not exist, unless a create made it.
	_, err = f.CompileCreate(Create{Group: "listeners"}, "timeline[4]", nil)
	wantError(t, err, "timeline[4].group", "the first object this step makes (2)", "fleet.objects[1].template.data.lb", `group "lbs" has objects 0 to 1, not 2`)
	if _, err := f.CompileCreate(Create{Group: "listeners"}, "timeline[4]", map[string]int{"lbs": 3, "listeners": 2}); err != nil {
		t.Errorf("listener 2 after load balancer 2 was made: %v", err)
	}
}
