package objects

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// refGroups are Gadgets (cluster-scoped) and two groups of Widgets: widgets name a gadget and carry app=w,
// probes carry app=p and find their target group through the widget of their index.
func refGroups(widgetInvariant string) []Group {
	w := widgets(2)
	w.Template = json.RawMessage(`{"apiVersion": "test.restartsim.io/v1", "kind": "Widget",
	  "metadata": {"name": "w-{{.Index}}", "labels": {"app": "w"}},
	  "spec": {"name": "{{awsName \"w\"}}", "port": "{{int (add 8000 .Index)}}", "gadgetRef": {"name": "g-{{.Index}}"}}}`)
	w.Ready, w.Invariant = "", widgetInvariant
	return []Group{
		{Name: "gadgets", Count: 2, Template: json.RawMessage(`{"apiVersion": "test.restartsim.io/v1", "kind": "Gadget",
		  "metadata": {"name": "g-{{.Index}}"}, "spec": {"size": "{{int (add 1 .Index)}}"}}`)},
		w,
		{Name: "probes", Count: 1, Template: json.RawMessage(`{"apiVersion": "test.restartsim.io/v1", "kind": "Widget",
		  "metadata": {"name": "p-{{.Index}}", "labels": {"app": "p"}}, "spec": {"name": "p{{.Index}}"}}`),
			AWS:       &AWSRef{Kind: AWSTargetGroup, Name: `ref('widgets', 'w-' + object.metadata.labels['i']).spec.name`},
			Invariant: `aws != null && aws.port == 8000`},
	}
}

// refObjects renders every object of refGroups with a uid; w-0 is owned by g-0, and p-0 (namespace ns-a,
// as w-0) is labelled i=0.
func refObjects(t *testing.T, f *CompiledGroups) (objs []*unstructured.Unstructured, byName map[string]*unstructured.Unstructured) {
	byName = map[string]*unstructured.Unstructured{}
	for _, g := range []string{"gadgets", "widgets", "probes"} {
		for i := range f.Count(g) {
			u, err := f.Render(testEnv, g, i)
			if err != nil {
				t.Fatal(err)
			}
			u.SetUID(k8stypes.UID("uid-" + u.GetName()))
			objs, byName[u.GetName()] = append(objs, u), u
		}
	}
	byName["w-0"].SetOwnerReferences(nil)
	byName["w-0"].Object["metadata"].(map[string]any)["ownerReferences"] = []any{
		map[string]any{"apiVersion": "test.restartsim.io/v1", "kind": "Gadget", "name": "g-0", "uid": "uid-g-0"},
		map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "elsewhere", "uid": "uid-unknown"},
	}
	l := byName["p-0"].GetLabels()
	l["i"] = "0"
	byName["p-0"].SetLabels(l)
	return objs, byName
}

func TestReferenceFunctions(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		holds      bool // for w-0
	}{
		{"ref by group", `ref('gadgets', object.spec.gadgetRef.name).spec.size == 1`, true},
		{"ref by kind", `ref('Gadget', object.spec.gadgetRef.name).metadata.name == 'g-0'`, true},
		{"ref of a missing object is null", `ref('gadgets', 'g-9') == null`, true},
		{"ref stays in object's namespace", `ref('widgets', 'w-1') == null && ref('widgets', 'w-0') != null`, true},
		{"ref of a group leaves out other groups of the kind", `ref('widgets', 'p-0') == null && ref('Widget', 'p-0') != null`, true},
		{"a field of a null ref fails", `ref('gadgets', 'g-9').spec.size == 1`, false},
		{"owners by uid", `owners('gadgets', object).map(o, o.metadata.name) == ['g-0']`, true},
		{"owners of another group", `owners('widgets', object).size() == 0`, true},
		{"selected by labels", `selected('Widget', {'app': 'w'}).map(o, o.metadata.name) == ['w-0']`, true},
		{"selected by a label selector", `selected('Widget', {'matchExpressions': [{'key': dyn('app'), 'operator': dyn('In'), 'values': dyn(['w', 'p'])}]}).size() == 2`, true},
		{"selected within a group", `selected('widgets', {'matchLabels': {'app': 'p'}}).size() == 0`, true},
		{"an empty selector selects nothing", `selected('Widget', {}).size() == 0`, true},
		{"a bad selector fails", `selected('Widget', {'app': 1}).size() == 0`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := compile(t, refGroups(tc.expr)...)
			objs, _ := refObjects(t, f)
			st := f.Check(objs, nil)
			holds := true
			for _, v := range st.Violations {
				if v.Key.Name == "w-0" {
					holds = false
					t.Log(v)
				}
			}
			if holds != tc.holds {
				t.Errorf("%s holds = %v, want %v", tc.expr, holds, tc.holds)
			}
		})
	}
}

func TestReferenceFunctionsCompileErrors(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`ref('nosuch', 'x') == null`, `ref: unknown group or kind "nosuch" (known: Gadget, Widget, gadgets, probes, widgets)`},
		{`ref(object.kind, 'x') == null`, "the first argument must be a group name or a kind in quotes"},
		{`owners(1, object).size() == 0`, "the first argument must be a group name or a kind in quotes"},
		{`ref('gadgets', 'g-0').spec.sise == 1`, "refers to an unknown field 'sise'"},
		{`selected('widgets', {}).exists(w, w.spec.prot == 1)`, "refers to an unknown field 'prot'"},
		{`ref('gadgets', 1) == null`, "found no matching overload"},
		// A string or a number type-checks as dyn against owners and selected: refused here, not at run time.
		{`owners('widgets', 'x').size() == 0`, "owners: the second argument must be an object whose ownerReferences"},
		{`selected('widgets', 'x').size() == 0`, "selected: the second argument must be a label selector"},
		{`selected('widgets', 5).size() == 0`, "selected: the second argument must be a label selector"},
		{`ref('gadgets') == null`, "ref takes two arguments, a group name or a kind in quotes and a name; got 1"},
		{`owners('widgets', object, 1).size() == 0`, "owners takes two arguments"},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := Compile(catalog(t), refGroups(tc.expr), "fleet.objects")
			wantError(t, err, "fleet.objects[1].invariant", tc.want)
		})
	}
	_, err := Compile(catalog(t), append(refGroups(""), Group{Name: "misc", Count: 1,
		Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m-{{.Index}}"}}`),
		AWS:      &AWSRef{Kind: AWSTargetGroup, Name: `ref('probs', object.metadata.name).spec.name`}}), "fleet.objects")
	wantError(t, err, "fleet.objects[3].aws.name", `unknown group or kind "probs"`)
}

func TestAWSFoundThroughAReference(t *testing.T) {
	f := compile(t, refGroups("")...)
	objs, byName := refObjects(t, f)
	w0 := byName["w-0"].Object["spec"].(map[string]any)
	snap, err := TakeSnapshot(&fakeState{tgs: []fakeaws.TargetGroup{{ARN: "arn:w0", Name: w0["name"].(string), Port: 8000}}})
	if err != nil {
		t.Fatal(err)
	}
	if st := f.Check(objs, snap); len(st.Violations) != 0 {
		t.Errorf("violations %v: p-0's target group is w-0's, on port 8000", st.Violations)
	}
	if got := f.ResourceID(byName["p-0"], snap.WithObjects(f.IndexObjects(objs))); got != "arn:w0" {
		t.Errorf("ARN of p-0 = %q, want w-0's arn:w0", got)
	}
	// Without the observation of the objects, the reference cannot be followed: aws is null.
	if ok, err := f.Ready(byName["p-0"], snap); !ok || err != nil {
		t.Errorf("Ready without objects = %v, %v; p-0 has no ready condition", ok, err)
	}
	if st := f.Check(objs[:len(objs)-1], snap); st.Groups[2].Present != 0 {
		t.Errorf("probes present %d without p-0", st.Groups[2].Present)
	}
}

func TestReferenceWithoutObservationFails(t *testing.T) {
	groups := refGroups("")
	groups[1].Ready = `ref('gadgets', 'g-0') != null`
	f := compile(t, groups...)
	_, byName := refObjects(t, f)
	ok, err := f.Ready(byName["w-0"], nil)
	if ok || err == nil || !strings.Contains(err.Error(), "need an observation of the fleet's objects") {
		t.Errorf("Ready without an observation = %v, %v; want the reference to fail", ok, err)
	}
}
