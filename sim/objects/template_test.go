package objects

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/fielderr"
)

func TestTemplateValueTypes(t *testing.T) {
	for _, tc := range []struct {
		value string
		index int
		want  any
	}{
		{`"plain"`, 3, "plain"},
		{`"{{.Index}}"`, 3, "3"},
		{`"{{int (add 8000 .Index)}}"`, 3, int64(8003)},
		{`"{{.Index | int}}"`, 3, int64(3)},
		{`"{{ int .Index }}"`, 3, int64(3)},
		{`" {{int .Index}}"`, 3, " 3"},
		{`"port-{{int .Index}}"`, 3, "port-3"},
		{`"{{float (div .Index 2)}}"`, 3, float64(1)},
		{`"{{float \"0.25\"}}"`, 3, 0.25},
		{`"{{bool (eq (mod .Index 2) 1)}}"`, 3, true},
		{`"{{if eq .Index 3}}three{{else}}other{{end}}"`, 3, "three"},
		{`"{{sub (mul .Index 10) 1}}"`, 3, "29"},
		{`42`, 3, int64(42)},
		{`4.5`, 3, 4.5},
		{`true`, 3, true},
		{`null`, 3, nil},
		{`["a-{{.Index}}", 1]`, 3, []any{"a-3", int64(1)}},
		{`{"k": "{{.Group}}/{{.Namespace}}/{{.RunID}}/{{.Region}}/{{.VpcID}}/{{.ClusterName}}"}`, 1, map[string]any{"k": "g/ns-b/run-1/us-west-2/vpc-1/c1"}},
	} {
		var errs fielderr.List
		vt := parseValueTemplate(json.RawMessage(tc.value), "v", parseFuncs(), &errs)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tc.value, errs)
		}
		d := Data{Index: tc.index, Group: "g", Namespace: testEnv.Namespaces[tc.index%2], RunID: testEnv.RunID, Region: testEnv.Region, VpcID: testEnv.VpcID, ClusterName: testEnv.ClusterName}
		got, err := vt.render(bindFuncs(nil, d), d)
		if err != nil {
			t.Fatalf("%s: %v", tc.value, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.value, got, tc.want)
		}
	}
}

func TestTemplateExecutionErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ value, path, msg string }{
		{`{"a": {"b": "{{.Nope}}"}}`, "v.a.b", "can't evaluate field Nope"},
		{`{"a": ["x", "{{div 1 0}}"]}`, "v.a[1]", "division by zero"},
		{`{"a": "{{int \"x\"}}"}`, "v.a", `"x" is not an integer`},
		{`{"a": "{{int \"1\" | printf \"%s-\" | int}}"}`, "v.a", "not an integer"},
		{`{"a": "{{add 9223372036854775807 1}}"}`, "v.a", "overflow"},
		{`{"k/x.y": "{{ref \"g\" 0}}"}`, "v[k/x.y]", "ref is not available"},
		// A range that writes nothing is stopped by its iteration count, not after minutes of looping.
		{`{"a": "{{range 300000000}}{{end}}"}`, "v.a", "ranges over more than 1048576 iterations"},
		{`{"a": "{{range 1024}}{{range 1025}}{{end}}{{end}}"}`, "v.a", "ranges over more than 1048576 iterations"},
	} {
		var errs fielderr.List
		vt := parseValueTemplate(json.RawMessage(tc.value), "v", parseFuncs(), &errs)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tc.value, errs)
		}
		_, err := vt.render(bindFuncs(nil, Data{}), Data{})
		var fe *fielderr.Error
		if !errors.As(err, &fe) || fe.Path != tc.path || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("%s: error %v, want one at %s containing %q", tc.value, err, tc.path, tc.msg)
		}
	}
}

func TestTemplateParseErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ value, path, msg string }{
		{`{"spec": {"name": "{{.Index"}}`, "v.spec.name", "malformed template"},
		{`{"spec": {"name": "{{nosuch 1}}"}}`, "v.spec.name", `function "nosuch" not defined`},
		{`{"spec": {"ports": [1, "{{end}}"]}}`, "v.spec.ports[1]", "malformed template"},
		{`{"spec": `, "v", "not a JSON value"},
	} {
		var errs fielderr.List
		parseValueTemplate(json.RawMessage(tc.value), "v", parseFuncs(), &errs)
		wantError(t, errs, tc.path, tc.msg)
	}
}

func TestRenderPlacesObjectsAndResolvesRefs(t *testing.T) {
	gadgets := Group{Name: "gadgets", Count: 4, Template: json.RawMessage(`{"apiVersion": "test.restartsim.io/v1", "kind": "Gadget",
		"metadata": {"name": "gadget-{{.Index}}", "labels": {"app": "x"}}, "spec": {"size": "{{int .Index}}"}}`)}
	refs := Group{Name: "refs", Count: 4, After: []string{"widgets"}, Template: json.RawMessage(`{"apiVersion": "test.restartsim.io/v1", "kind": "Widget",
		"metadata": {"name": "ref-{{.Index}}", "annotations": {"widget": "{{ref \"widgets\" .Index}}", "ns": "{{refNamespace \"widgets\" (mod .Index 2)}}"}},
		"spec": {"name": "{{awsName .Group}}", "gadgetRef": {"name": "{{ref \"gadgets\" (sub 3 .Index)}}", "namespace": "{{refNamespace \"gadgets\" 0}}"}}}`)}
	f := compile(t, widgets(4), gadgets, refs)

	u, err := f.Render(testEnv, "refs", 3)
	if err != nil {
		t.Fatal(err)
	}
	if u.GetNamespace() != "ns-b" || u.GetName() != "ref-3" {
		t.Errorf("object 3 is %s/%s, want ns-b/ref-3", u.GetNamespace(), u.GetName())
	}
	wantAnn := map[string]string{"widget": "w-3", "ns": "ns-b"}
	if !reflect.DeepEqual(u.GetAnnotations(), wantAnn) {
		t.Errorf("annotations %v, want %v", u.GetAnnotations(), wantAnn)
	}
	if got := u.GetLabels(); got[GroupLabel] != "refs" || got[IndexLabel] != "3" {
		t.Errorf("labels %v, want the group and index labels", got)
	}
	spec := u.Object["spec"].(map[string]any)
	if ref := spec["gadgetRef"].(map[string]any); ref["name"] != "gadget-0" || ref["namespace"] != "" {
		t.Errorf("gadgetRef %v, want gadget-0 without a namespace (Gadget is cluster-scoped)", ref)
	}
	if want, _ := AWSName("refs", testEnv.RunID, "refs", 3); spec["name"] != want {
		t.Errorf("spec.name %v, want %s", spec["name"], want)
	}

	g, err := f.Render(testEnv, "gadgets", 2)
	if err != nil {
		t.Fatal(err)
	}
	if g.GetNamespace() != "" || g.GetLabels()["app"] != "x" || g.Object["spec"].(map[string]any)["size"] != int64(2) {
		t.Errorf("gadget 2 = %v, want cluster-scoped, its own label kept and size 2", g.Object)
	}
	key, err := f.Key(testEnv, "widgets", 2)
	if err != nil || key.String() != "ns-a/w-2" {
		t.Errorf("Key(widgets, 2) = %v, %v; want ns-a/w-2", key, err)
	}
	if _, err := f.Render(testEnv, "widgets", 4); err == nil || !strings.Contains(err.Error(), "objects 0 to 3") {
		t.Errorf("Render(widgets, 4) = %v, want an out-of-range error", err)
	}
}
