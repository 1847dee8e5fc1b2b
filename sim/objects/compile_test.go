package objects

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// widgetWith is a Widget group whose template is widgetTemplate changed by edit.
func widgetWith(name string, edit func(obj map[string]any)) Group {
	var obj map[string]any
	if err := json.Unmarshal([]byte(widgetTemplate), &obj); err != nil {
		panic(err)
	}
	edit(obj)
	raw, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	g := widgets(3)
	g.Name, g.Template = name, raw
	return g
}

func meta(obj map[string]any) map[string]any { return obj["metadata"].(map[string]any) }
func spec(obj map[string]any) map[string]any { return obj["spec"].(map[string]any) }

func TestCompileRefusesBadGroups(t *testing.T) {
	for _, tc := range []struct {
		name   string
		groups []Group
		path   string
		msg    []string
	}{
		{"bad name", []Group{func() Group { g := widgets(1); g.Name = "Widgets_1"; return g }()}, "fleet.objects[0].name", []string{"not a DNS label"}},
		{"twice", []Group{widgets(1), widgets(1)}, "fleet.objects[1].name", []string{"defined twice"}},
		{"count", []Group{widgets(0)}, "fleet.objects[0].count", []string{"between 1 and 100000"}},
		{"too many", []Group{widgets(MaxCount + 1)}, "fleet.objects[0].count", []string{"between 1 and 100000"}},
		{"no template", []Group{{Name: "a", Count: 1}}, "fleet.objects[0].template", []string{"required"}},
		{"not an object", []Group{{Name: "a", Count: 1, Template: json.RawMessage(`["x"]`)}}, "fleet.objects[0].template", []string{"must be an object"}},
		{"no apiVersion", []Group{widgetWith("a", func(o map[string]any) { delete(o, "apiVersion") })}, "fleet.objects[0].template.apiVersion", []string{"required"}},
		{"templated kind", []Group{widgetWith("a", func(o map[string]any) { o["kind"] = "{{.Group}}" })}, "fleet.objects[0].template.kind", []string{"plain string"}},
		{"unknown kind", []Group{widgetWith("a", func(o map[string]any) { o["kind"] = "Sprocket" })}, "fleet.objects[0].template.kind",
			[]string{"unknown kind Sprocket in test.restartsim.io/v1", "cluster.crds"}},
		{"unserved version", []Group{widgetWith("a", func(o map[string]any) { o["apiVersion"] = "test.restartsim.io/v2" })}, "fleet.objects[0].template.kind",
			[]string{"not served in test.restartsim.io/v2", "served: test.restartsim.io/v1"}},
		{"no metadata", []Group{widgetWith("a", func(o map[string]any) { delete(o, "metadata") })}, "fleet.objects[0].template.metadata", []string{"required"}},
		{"no name", []Group{widgetWith("a", func(o map[string]any) { delete(meta(o), "name") })}, "fleet.objects[0].template.metadata.name", []string{"required"}},
		{"fixed name", []Group{widgetWith("a", func(o map[string]any) { meta(o)["name"] = "w" })}, "fleet.objects[0].template.metadata.name",
			[]string{`every object of the group would be named "w"`, "w-{{.Index}}"}},
		{"repeating name", []Group{widgetWith("a", func(o map[string]any) { meta(o)["name"] = "w-{{mod .Index 2}}" })}, "fleet.objects[0].template.metadata.name",
			[]string{`objects 0 and 2 are both named "w-0"`}},
		{"not a DNS name", []Group{widgetWith("a", func(o map[string]any) { meta(o)["name"] = "W_{{.Index}}" })}, "fleet.objects[0].template.metadata.name",
			[]string{"object 0", `"W_0"`, "RFC 1123"}},
		{"ref in name", []Group{widgetWith("a", func(o map[string]any) { meta(o)["name"] = `{{ref "a" 0}}-x` })}, "fleet.objects[0].template.metadata.name",
			[]string{"ref cannot be used in metadata.name"}},
		{"namespace", []Group{widgetWith("a", func(o map[string]any) { meta(o)["namespace"] = "x" })}, "fleet.objects[0].template.metadata.namespace",
			[]string{"set by the harness"}},
		{"generateName", []Group{widgetWith("a", func(o map[string]any) { meta(o)["generateName"] = "x-" })}, "fleet.objects[0].template.metadata.generateName",
			[]string{"not supported"}},
		{"malformed", []Group{widgetWith("a", func(o map[string]any) { spec(o)["name"] = "{{awsName" })}, "fleet.objects[0].template.spec.name",
			[]string{"malformed template"}},
		{"unknown function", []Group{widgetWith("a", func(o map[string]any) { spec(o)["name"] = "{{uuid}}" })}, "fleet.objects[0].template.spec.name",
			[]string{`function "uuid" not defined`}},
		{"unknown field", []Group{widgetWith("a", func(o map[string]any) { spec(o)["name"] = "{{.Idx}}" })}, "fleet.objects[0].template.spec.name",
			[]string{"object 0", "can't evaluate field Idx"}},
		{"ref unknown group", []Group{widgetWith("a", func(o map[string]any) { spec(o)["name"] = `{{ref "lbs" .Index}}` })}, "fleet.objects[0].template.spec.name",
			[]string{`ref: unknown group "lbs"`, "(groups: a)"}},
		{"ref out of range", []Group{widgets(2), widgetWith("a", func(o map[string]any) { spec(o)["name"] = `{{ref "widgets" .Index}}` })}, "fleet.objects[1].template.spec.name",
			[]string{"object 2", `group "widgets" has objects 0 to 1, not 2`}},
		{"after unknown", []Group{func() Group { g := widgets(1); g.After = []string{"lbs"}; return g }()}, "fleet.objects[0].after[0]",
			[]string{`unknown group "lbs"`}},
		{"after itself", []Group{func() Group { g := widgets(1); g.After = []string{"widgets"}; return g }()}, "fleet.objects[0].after[0]",
			[]string{"after itself"}},
		{"cycle", []Group{
			func() Group { g := widgetWith("a", func(map[string]any) {}); g.After = []string{"c"}; return g }(),
			func() Group { g := widgetWith("b", func(map[string]any) {}); g.After = []string{"a"}; return g }(),
			func() Group { g := widgetWith("c", func(map[string]any) {}); g.After = []string{"b"}; return g }(),
		}, "fleet.objects[0].after", []string{"groups a, b, c wait for each other in a cycle"}},
		{"aws kind", []Group{func() Group { g := widgets(1); g.AWS.Kind = "bucket"; return g }()}, "fleet.objects[0].aws.kind", []string{`"bucket" is not one of`}},
		{"aws both", []Group{func() Group { g := widgets(1); g.AWS.ARN = "object.status.arn"; return g }()}, "fleet.objects[0].aws", []string{"one of arn and name"}},
		{"aws name of a rule", []Group{func() Group { g := widgets(1); g.AWS.Kind = AWSRule; return g }()}, "fleet.objects[0].aws.name", []string{"give arn"}},
		{"aws arn not a string", []Group{func() Group { g := widgets(1); g.AWS.Name = "object.spec.port"; return g }()}, "fleet.objects[0].aws.name",
			[]string{"must be a string expression", "int"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(catalog(t), tc.groups, "fleet.objects")
			wantError(t, err, tc.path, tc.msg...)
		})
	}
}

func TestCompileOrdersGroupsByAfter(t *testing.T) {
	group := func(name string, after ...string) Group {
		g := widgetWith(name, func(o map[string]any) { meta(o)["name"] = name + "-{{.Index}}" })
		g.After = after
		return g
	}
	f := compile(t, group("rules", "listeners"), group("lbs"), group("listeners", "lbs", "tgs"), group("tgs"))
	want := [][]string{{"lbs", "tgs"}, {"listeners"}, {"rules"}}
	if !reflect.DeepEqual(f.Order(), want) {
		t.Errorf("Order() = %v, want %v", f.Order(), want)
	}
	if got := f.Groups(); !reflect.DeepEqual(got, []string{"rules", "lbs", "listeners", "tgs"}) {
		t.Errorf("Groups() = %v, want the scenario's order", got)
	}
}

func TestCompileReportsEveryProblem(t *testing.T) {
	bad := widgets(0)
	bad.Ready = "object.spec.nosuch"
	_, err := Compile(catalog(t), []Group{bad, {Name: "x", Count: 1}}, "fleet.objects")
	got := strings.Join(fieldErrors(t, err), "\n")
	for _, path := range []string{"fleet.objects[0].count", "fleet.objects[0].ready", "fleet.objects[1].template"} {
		if !strings.Contains(got, path+": ") {
			t.Errorf("errors do not name %s:\n%s", path, got)
		}
	}
}

func TestLoadCatalog(t *testing.T) {
	c := catalog(t)
	for _, tc := range []struct {
		apiVersion, kind string
		namespaced       bool
	}{
		{"test.restartsim.io/v1", "Widget", true},
		{"test.restartsim.io/v1", "Gadget", false},
		{"v1", "ConfigMap", true},
		{"v1", "Namespace", false},
		{"apps/v1", "Deployment", true},
		{"networking.k8s.io/v1", "IngressClass", false},
	} {
		k, err := c.Lookup(tc.apiVersion, tc.kind)
		if err != nil {
			t.Errorf("Lookup(%s, %s): %v", tc.apiVersion, tc.kind, err)
			continue
		}
		if k.Namespaced != tc.namespaced {
			t.Errorf("%s namespaced = %v, want %v", tc.kind, k.Namespaced, tc.namespaced)
		}
	}
	for _, kind := range []string{"ConfigMapList", "ListOptions", "WatchEvent"} {
		if _, err := c.Lookup("v1", kind); err == nil {
			t.Errorf("Lookup(v1, %s) found a kind objects cannot be", kind)
		}
	}
	if _, err := LoadCatalog("testdata/no-such-dir"); err == nil {
		t.Error("LoadCatalog of a missing path: no error")
	}
}
