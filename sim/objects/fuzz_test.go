package objects

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/fielderr"
)

// slowTemplate matches what makes text/template itself loop or allocate without bound (range over a large
// integer, printf widths): the fuzz targets test this package, not those.
var slowTemplate = regexp.MustCompile(`range|%|[0-9]{5}`)

// FuzzRender parses any JSON value as a template and renders it: no panic, and a result that is JSON again,
// with plain strings untouched.
func FuzzRender(f *testing.F) {
	for _, s := range []string{`"{{.Index}}"`, `{"a": ["{{int (add 1 .Index)}}", 2, null]}`, `"{{ref \"g\" 0}}"`, `"{{awsName .Group}}"`, `"{{bool \"true\"}}"`} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, raw []byte, index int) {
		if len(raw) > 1000 || slowTemplate.Match(raw) {
			t.Skip()
		}
		var errs fielderr.List
		vt := parseValueTemplate(raw, "v", parseFuncs(), &errs)
		if vt == nil || len(errs) > 0 {
			return
		}
		d := Data{Index: index, Group: "g", Namespace: "ns", RunID: "r"}
		out, err := vt.render(bindFuncs(nil, d), d)
		if err != nil {
			if fe := (*fielderr.Error)(nil); !errors.As(err, &fe) {
				t.Fatalf("render error %T %v, want a *fielderr.Error", err, err)
			}
			return
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("rendered %#v is not JSON: %v", out, err)
		}
		var plain any
		if json.Unmarshal(raw, &plain) == nil {
			if s, ok := plain.(string); ok && !strings.Contains(s, "{{") && out != s {
				t.Fatalf("plain string %q rendered as %#v", s, out)
			}
		}
	})
}

// FuzzCompileCEL compiles any expression as a Widget group's condition and evaluates what compiles, with and
// without AWS state: no panic, and a compile error names the field.
func FuzzCompileCEL(f *testing.F) {
	for _, s := range []string{
		`object.status.conditions.exists(c, c.type == "ACK.ResourceSynced" && c.status == "True")`,
		`aws != null && aws.healthCheck.path == object.spec.healthCheckPath`,
		`object.spec.nosuch == 1`, `aws.targets.all(t, t.state == "healthy")`, `object.?status.?arn.orValue("") != ""`, `)(`,
		`ref('widgets', object.metadata.name).spec.port == object.spec.port`, `selected('Widget', {'a': 'b'}).size() == 0`,
		`owners('widgets', object).exists(o, o.spec.name == "x")`, `ref(object.kind, "x") == null`,
	} {
		f.Add(s)
	}
	fl := compile(f, widgets(1))
	g := fl.byName["widgets"]
	u := widget(f, fl, 0, "True")
	snap, err := TakeSnapshot(&fakeState{tgs: []fakeaws.TargetGroup{targetGroupOf(u, "/healthz")}})
	if err != nil {
		f.Fatal(err)
	}
	bound := g.bind(u.Object, snap.WithObjects(fl.IndexObjects([]*unstructured.Unstructured{u})))
	object := bound.object
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 2000 {
			t.Skip()
		}
		x, ferr := g.env.compile(text, "fleet.objects[0].invariant", cel.BoolType)
		if ferr != nil {
			if ferr.Path != "fleet.objects[0].invariant" || ferr.Msg == "" {
				t.Fatalf("compile error %+v does not name the field", ferr)
			}
			return
		}
		for _, aws := range []ref.Val{types.NullValue, bound.aws} {
			act := &activation{object: object, aws: aws, view: bound.view}
			_, _ = x.evalBool(act)
			_ = x.explain(act)
		}
	})
}

// FuzzLabelSelector reads any JSON value as the selector of selected(): no panic, an error or a selector, and
// a selector never selects from an empty or null value.
func FuzzLabelSelector(f *testing.F) {
	for _, s := range []string{`{"app": "w"}`, `{"matchLabels": {"a": "b"}}`, `{"matchExpressions": [{"key": "a", "operator": "In", "values": ["x"]}]}`,
		`{}`, `null`, `{"a": 1}`, `{"matchExpressions": [{"key": "a", "operator": "Bogus"}]}`, `["a"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v any
		if len(raw) > 2000 || json.Unmarshal(raw, &v) != nil {
			t.Skip()
		}
		sel, err := labelSelector(toNative(types.DefaultTypeAdapter.NativeToValue(v)))
		if m, ok := v.(map[string]any); (v == nil || ok && len(m) == 0) && (sel != nil || err != nil) {
			t.Fatalf("%s: selector %v, error %v; want none", raw, sel, err)
		}
	})
}
