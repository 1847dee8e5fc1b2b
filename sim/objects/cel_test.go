package objects

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestCELCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Group)
		path  string
		frags []string
	}{
		{"syntax", func(g *Group) { g.Ready = "object.status.conditions.exists(c, " }, "fleet.objects[0].ready", []string{"does not compile", "Syntax error"}},
		{"unknown object field", func(g *Group) { g.Ready = `object.spec.nosuchfield == "x"` }, "fleet.objects[0].ready",
			[]string{"refers to an unknown field 'nosuchfield'", "(at 1:12)"}},
		{"unknown nested field", func(g *Group) { g.Invariant = `object.status.conditions.all(c, c.reason != "")` }, "fleet.objects[0].invariant",
			[]string{"refers to an unknown field 'reason'"}},
		{"unknown aws field", func(g *Group) { g.Invariant = `aws.healthCheck.pathh == "/"` }, "fleet.objects[0].invariant",
			[]string{"refers to an unknown field 'pathh'"}},
		{"aws field of another kind", func(g *Group) { g.Invariant = `aws.dnsName != ""` }, "fleet.objects[0].invariant",
			[]string{"refers to an unknown field 'dnsName'"}},
		{"aws without aws", func(g *Group) { g.AWS = nil; g.Invariant = `aws.name == ""` }, "fleet.objects[0].invariant", []string{"does not compile"}},
		{"not a bool", func(g *Group) { g.Ready = `object.spec.port` }, "fleet.objects[0].ready", []string{"must be a bool expression", "int"}},
		{"not a bool either", func(g *Group) { g.Invariant = `size(object.status.conditions)` }, "fleet.objects[0].invariant", []string{"must be a bool expression"}},
		{"arn not a string", func(g *Group) { g.AWS = &AWSRef{Kind: AWSTargetGroup, ARN: "has(object.status.arn)"} }, "fleet.objects[0].aws.arn",
			[]string{"must be a string expression", "bool"}},
		{"arn reads aws", func(g *Group) { g.AWS = &AWSRef{Kind: AWSTargetGroup, ARN: "aws.arn"} }, "fleet.objects[0].aws.arn", []string{"does not compile"}},
		{"unknown function", func(g *Group) { g.Ready = `object.spec.name.frobnicate()` }, "fleet.objects[0].ready", []string{"does not compile"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := widgets(2)
			tc.edit(&g)
			_, err := Compile(catalog(t), []Group{g}, "fleet.objects")
			wantError(t, err, tc.path, tc.frags...)
		})
	}
}

func TestCELCompilesWhatConditionsNeed(t *testing.T) {
	for _, expr := range []string{
		`object.status.conditions.exists(c, c.type == "ACK.ResourceSynced" && c.status == "True")`,
		`object.metadata.generation > 0 && object.metadata.labels["restartsim.io/group"] == "widgets"`,
		`has(object.status.arn) && object.status.arn.startsWith("arn:aws:")`,
		`object.?status.?arn.orValue("") != ""`,
		`aws != null && aws.targets.all(t, t.state == "healthy") && aws.port == object.spec.port`,
		`aws != null && aws.createdAt < timestamp("2100-01-01T00:00:00Z") && aws.healthCheck.intervalSeconds >= 5`,
		`aws != null && aws.tags.exists(t, t.key == "k") && aws.attributes["deregistration_delay.timeout_seconds"] == "30"`,
		`object.status.conditions.exists(c, c.lastTransitionTime > timestamp("2020-01-01T00:00:00Z"))`,
	} {
		g := widgets(1)
		g.Invariant = expr
		if _, err := Compile(catalog(t), []Group{g}, "fleet.objects"); err != nil {
			t.Errorf("%s: %v", expr, err)
		}
	}
}

// widget is a Widget object of the fleet with ACK's synced condition and a status ARN.
func widget(t testing.TB, f *CompiledGroups, index int, synced string) *unstructured.Unstructured {
	t.Helper()
	u, err := f.Render(testEnv, "widgets", index)
	if err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = map[string]any{
		"arn":        "arn:tg-" + u.GetName(),
		"conditions": []any{map[string]any{"type": "ACK.ResourceSynced", "status": synced}},
	}
	return u
}

// targetGroupOf is the target group AWS holds for a widget.
func targetGroupOf(u *unstructured.Unstructured, path string) fakeaws.TargetGroup {
	s := u.Object["spec"].(map[string]any)
	return fakeaws.TargetGroup{ARN: "arn:tg-" + u.GetName(), Name: s["name"].(string), Port: int32(s["port"].(int64)),
		TargetType: "ip", HealthCheck: fakeaws.HealthCheck{Path: path}, CreatedAt: time.Unix(0, 0)}
}

func TestCELEvaluatesWithAndWithoutAWS(t *testing.T) {
	f := compile(t, widgets(3))
	w0, w1, w2 := widget(t, f, 0, "True"), widget(t, f, 1, "False"), widget(t, f, 2, "True")
	state := &fakeState{tgs: []fakeaws.TargetGroup{targetGroupOf(w0, "/healthz"), targetGroupOf(w1, "/healthz"), targetGroupOf(w2, "/other")}}
	snap, err := TakeSnapshot(state, f.AWSKinds()...)
	if err != nil {
		t.Fatal(err)
	}

	st := f.Check([]*unstructured.Unstructured{w0, w1, w2}, snap)
	g := st.Groups[0]
	if g.Count != 3 || g.Present != 3 || g.Ready != 2 || len(g.NotReady) != 1 || g.NotReady[0].Index != 1 {
		t.Fatalf("status %+v, want 2 of 3 ready, object 1 not", g)
	}
	if r := g.NotReady[0].Reason; !strings.Contains(r, "is false") || !strings.Contains(r, "object.status.conditions = ") {
		t.Errorf("not-ready reason %q, want the condition and the value it read", r)
	}
	if len(st.Violations) != 1 || st.Violations[0].Index != 2 {
		t.Fatalf("violations %v, want object 2's", st.Violations)
	}
	v := st.Violations[0].String()
	for _, want := range []string{"fleet.objects[0].invariant", "widgets object 2 (ns-a/w-2)", `aws.healthCheck.path = "/other"`, `object.spec.healthCheckPath = "/healthz"`} {
		if !strings.Contains(v, want) {
			t.Errorf("violation %q does not say %q", v, want)
		}
	}
	if st.AllReady() || st.Holds() {
		t.Error("AllReady or Holds with an object not ready")
	}

	// Without AWS state, aws is null: the invariant fails for every object and says so.
	st = f.Check([]*unstructured.Unstructured{w0}, nil)
	if len(st.Violations) != 1 || !strings.Contains(st.Violations[0].Message, "aws = null") {
		t.Errorf("violations without AWS: %v, want aws = null", st.Violations)
	}
	if st.Groups[0].Present != 1 || st.Groups[0].Ready != 1 {
		t.Errorf("status %+v, want 1 present and ready", st.Groups[0])
	}
}

func TestCELEvaluationErrorsCountAsNotHolding(t *testing.T) {
	f := compile(t, widgets(1))
	u, _ := f.Render(testEnv, "widgets", 0) // no status yet
	ok, err := f.Ready(u, nil)
	if ok || err == nil || !strings.Contains(err.Error(), "no such key: status") {
		t.Errorf("Ready without status = %v, %v; want false with the missing key", ok, err)
	}
}

func TestCELBuiltInKindsAreDynamic(t *testing.T) {
	cm := Group{Name: "cms", Count: 2, Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": {"name": "cm-{{.Index}}"}, "data": {"k": "v-{{.Index}}"}}`),
		Ready: `object.data.k.startsWith("v-")`, Invariant: `object.data.nosuch == "x"`}
	f := compile(t, cm) // an unknown field of a built-in kind compiles: object is dynamic
	u, err := f.Render(testEnv, "cms", 1)
	if err != nil {
		t.Fatal(err)
	}
	st := f.Check([]*unstructured.Unstructured{u}, nil)
	if st.Groups[0].Ready != 1 {
		t.Errorf("ConfigMap not ready: %+v", st.Groups[0])
	}
	if len(st.Violations) != 1 || !strings.Contains(st.Violations[0].Message, "no such key: nosuch") {
		t.Errorf("violations %v, want the missing key", st.Violations)
	}
}

func TestCELCostLimit(t *testing.T) {
	g := widgets(1)
	g.Ready = `[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d,
		[1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f2, a + b + c + d + e + f2 > 0))))))`
	f := compile(t, g)
	ok, err := f.Ready(widget(t, f, 0, "True"), nil)
	if ok || err == nil || !strings.Contains(err.Error(), "cost limit") {
		t.Errorf("Ready over the cost limit = %v, %v; want a cost limit error", ok, err)
	}
}
