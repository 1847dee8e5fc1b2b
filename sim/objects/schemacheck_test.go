package objects

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCompileChecksRenderedObjectsAgainstTheSchema(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(map[string]any)
		path  string
		frags []string
	}{
		{"string for an integer", func(o map[string]any) { spec(o)["port"] = "{{add 8000 .Index}}" }, "fleet.objects[0].template.spec.port",
			[]string{"must be of type integer", `"string"`}},
		{"misspelt field", func(o map[string]any) { spec(o)["healthcheckPath"] = "/" }, "fleet.objects[0].template.spec.healthcheckPath",
			[]string{"unknown field", "Widget"}},
		{"too long", func(o map[string]any) { spec(o)["name"] = "{{awsName \"w\"}}-and-more-than-thirty-two-characters" }, "fleet.objects[0].template.spec.name",
			[]string{"32"}},
		{"required", func(o map[string]any) { delete(spec(o), "name") }, "fleet.objects[0].template.spec.name", []string{"Required"}},
		{"typed float for an integer", func(o map[string]any) { spec(o)["port"] = "{{float .Index}}" }, "", nil},
		{"bool", func(o map[string]any) { spec(o)["enabled"] = "{{bool \"true\"}}" }, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(catalog(t), []Group{widgetWith("a", tc.edit)}, "fleet.objects")
			if tc.path == "" {
				if err != nil {
					t.Fatalf("want no error, got %v", err)
				}
				return
			}
			wantError(t, err, tc.path, tc.frags...)
		})
	}
}

func TestCompilePatchChecksThePatchedObject(t *testing.T) {
	f := compile(t, widgets(2))
	for _, tc := range []struct{ merge, path, frag string }{
		{`{"spec": {"port": "{{.Seq}}"}}`, "timeline[0].merge.spec.port", "must be of type integer"},
		{`{"spec": {"path": "/x"}}`, "timeline[0].merge.spec.path", "unknown field"},
		{`{"spec": {"name": null}}`, "timeline[0].merge.spec.name", "Required"},
		{`{"spec": {"port": "{{int .Seq}}", "gadgetRef": {"name": "g"}}}`, "", ""},
	} {
		_, err := f.CompilePatch(Patch{Group: "widgets", Merge: json.RawMessage(tc.merge), Applied: "true"}, "timeline[0]")
		if tc.path == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.merge, err)
			}
			continue
		}
		wantError(t, err, tc.path, tc.frag)
	}
}

func TestMergePatch(t *testing.T) {
	obj := map[string]any{"a": "b", "c": map[string]any{"d": "e", "f": "g"}, "l": []any{"x"}}
	patch := map[string]any{"a": "z", "c": map[string]any{"f": nil, "h": int64(1)}, "l": []any{"y"}, "n": map[string]any{"m": nil}}
	want := map[string]any{"a": "z", "c": map[string]any{"d": "e", "h": int64(1)}, "l": []any{"y"}, "n": map[string]any{}}
	if got := mergePatch(obj, patch); !reflect.DeepEqual(got, want) {
		t.Errorf("mergePatch = %v, want %v", got, want)
	}
	if obj["a"] != "b" {
		t.Error("mergePatch changed its input")
	}
}
