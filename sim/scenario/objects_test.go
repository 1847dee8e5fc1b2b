package scenario

import (
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/objects"
)

// objectsBase has no bindings, one group of Widgets (the object compiler's test CRD) and a patch
// churn step; line numbers in the cases below count from its first line.
const objectsBase = `apiVersion: restartsim/v1
kind: Scenario
name: objects
cluster:
  crds: ["../objects/testdata/crds/widgets.yaml"]
fleet:
  targetGroupBindings: 0
  objects:
    - name: widgets
      count: 20
      template:
        apiVersion: test.restartsim.io/v1
        kind: Widget
        metadata: {name: "w-{{.Index}}"}
        spec:
          name: '{{awsName "w"}}'
          port: 80
          healthCheckPath: /healthz
      ready: 'object.status.conditions.exists(c, c.type == "Synced" && c.status == "True")'
      aws: {kind: targetGroup, name: object.spec.name}
      invariant: 'aws != null && aws.healthCheck.path == object.spec.healthCheckPath'
controller:
  strategies:
    - {name: a}
timeline:
  - {action: restart, mode: crash}
  - {action: churn, kind: patch, group: widgets, count: 5, patch: {spec: {healthCheckPath: "/v{{.Seq}}"}}, applied: 'aws != null && aws.healthCheck.path == object.spec.healthCheckPath', mutations: [ModifyTargetGroup]}
  - {waitFor: steadyState, timeout: 1m}
`

func TestParseObjects(t *testing.T) {
	s, err := Parse("o.yaml", []byte(objectsBase))
	if err != nil {
		t.Fatal(err)
	}
	if s.Fleet.TargetGroupBindings != 0 || len(s.Fleet.Objects) != 1 || s.Fleet.Namespaces != 1 {
		t.Fatalf("fleet = %+v, want no bindings, one group, one namespace", s.Fleet)
	}
	c, errs := CompileObjects(s)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, ok := c.Churn[1].(*objects.Patcher); c.Fleet.Count("widgets") != 20 || !ok {
		t.Fatalf("compiled = %+v, want 20 widgets and the patch of timeline[1]", c)
	}
}

// Parse compiles the object groups and churn steps once: each run's Objects are that compile, with
// members of its own, and compile nothing more.
func TestObjectsCompiledOnceByParse(t *testing.T) {
	s, err := Parse("o.yaml", []byte(objectsBase))
	if err != nil {
		t.Fatal(err)
	}
	before := objects.Compilations()
	a, err := s.Objects()
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Objects()
	if err != nil {
		t.Fatal(err)
	}
	if n := objects.Compilations() - before; n != 0 {
		t.Errorf("two runs' objects compiled %d templates or expressions, want none", n)
	}
	if a.Fleet == b.Fleet || a.Churn[1] == b.Churn[1] || a.Fleet.Members("widgets") != 20 {
		t.Errorf("runs share groups or steps (%p %p), or the group has %d members: want each run its own 20", a.Fleet, b.Fleet, a.Fleet.Members("widgets"))
	}
	built := *s
	built.compiled = nil
	if _, err := built.Objects(); err != nil || objects.Compilations() == before {
		t.Errorf("a scenario built in code: error %v, compilations %d: want it compiled when asked", err, objects.Compilations()-before)
	}
}

// A scenario changed in code after Parse (a test scaling a shipped scenario down, the Go API) runs
// as changed: what Parse compiled is reused only while the groups and the timeline are as read.
func TestObjectsFollowChangesAfterParse(t *testing.T) {
	s, err := Parse("o.yaml", []byte(objectsBase))
	if err != nil {
		t.Fatal(err)
	}
	s.Fleet.Objects[0].Count = 7
	c, err := s.Objects()
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Fleet.Members("widgets"); n != 7 {
		t.Errorf("widgets after the count was changed to 7 in code: %d members", n)
	}
	before := objects.Compilations()
	if _, err := s.Objects(); err != nil || objects.Compilations() == before {
		t.Errorf("changed scenario asked again: error %v, %d compilations; want it compiled again, not a stale copy", err, objects.Compilations()-before)
	}
	s.Timeline[1].Patch = nil
	if _, err := s.Objects(); err == nil {
		t.Error("a patch step whose patch was removed in code: want the compile's error, not the patch Parse read")
	}
}

// Every problem of an object group or patch is refused before anything starts, placed on its line.
func TestParseObjectErrors(t *testing.T) {
	sub := func(old, new string) string {
		if !strings.Contains(objectsBase, old) {
			t.Fatalf("test bug: objectsBase lacks %q", old)
		}
		return strings.Replace(objectsBase, old, new, 1)
	}
	cases := []struct{ name, file, want string }{
		{"no bindings without objects", sub("  objects:\n", "  xobjects:\n"), `fleet.xobjects: unknown field`},
		{"malformed template", sub(`'{{awsName "w"}}'`, `'{{awsName "w"'`), `o.yaml:16:17: fleet.objects[0].template.spec.name:`},
		{"unknown function", sub(`'{{awsName "w"}}'`, `'{{nosuch "w"}}'`), `o.yaml:16:17: fleet.objects[0].template.spec.name:`},
		{"unknown kind", sub("kind: Widget", "kind: Sprocket"), `o.yaml:13:15: fleet.objects[0].template.kind:`},
		{"CEL syntax", sub(`c.status == "True")'`, `c.status == "True"'`), `o.yaml:19:7: fleet.objects[0].ready:`},
		{"CEL unknown object field", sub("aws.healthCheck.path == object.spec.healthCheckPath'\ncontroller", "aws.healthCheck.path == object.spec.nosuch'\ncontroller"), `o.yaml:21:7: fleet.objects[0].invariant:`},
		{"CEL unknown aws field", sub("aws.healthCheck.path == object.spec.healthCheckPath'\ncontroller", "aws.healthCheck.nosuch == object.spec.healthCheckPath'\ncontroller"), `o.yaml:21:7: fleet.objects[0].invariant:`},
		{"after unknown group", sub("      aws: {kind: targetGroup", "      after: [gizmos]\n      aws: {kind: targetGroup"), `fleet.objects[0].after[0]:`},
		{"CEL not bool", sub(`ready: 'object.status.conditions.exists(c, c.type == "Synced" && c.status == "True")'`, `ready: 'object.spec.name'`), `fleet.objects[0].ready:`},
		{"aws kind", sub("kind: targetGroup", "kind: bucket"), `fleet.objects[0].aws.kind:`},
		{"record set without type", sub("aws: {kind: targetGroup, name: object.spec.name}", "aws: {kind: route53RecordSet, zone: '\"Z1\"', name: object.spec.name}"),
			`o.yaml:20:7: fleet.objects[0].aws.type: required: a route53RecordSet is found by zone, name and type`},
		{"hosted zone by arn", sub("aws: {kind: targetGroup, name: object.spec.name}", "aws: {kind: route53HostedZone, arn: object.spec.name}"),
			`o.yaml:20:38: fleet.objects[0].aws.arn: a route53HostedZone is not found by arn; give one of id and name`},
		{"record set zone not a string", sub("aws: {kind: targetGroup, name: object.spec.name}", "aws: {kind: route53RecordSet, zone: object.spec.port, name: object.spec.name, type: '\"A\"'}"),
			`fleet.objects[0].aws.zone:`},
		{"patch unknown group", sub("group: widgets", "group: gizmos"), `o.yaml:27:34: timeline[1].group: "gizmos" is not a group of fleet.objects`},
		{"patch count", sub("count: 5", "count: 21"), `timeline[1].count: must be between 1 and 20`},
		{"patch template", sub(`"/v{{.Seq}}"`, `"/v{{.Seq"`), `timeline[1].patch.spec.healthCheckPath:`},
		{"applied unknown aws field", sub("applied: 'aws != null && aws.healthCheck.path", "applied: 'aws != null && aws.nosuch.path"), `timeline[1].applied:`},
		{"crd missing", sub("../objects/testdata/crds/widgets.yaml", "/nonexistent/crds"), `cluster.crds[0]:`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("o.yaml", []byte(tc.file))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
			assertPlaced(t, err)
		})
	}
}

// lifecycleTimeline replaces objectsBase's patch step with steps that make and delete widgets.
func lifecycleTimeline(t *testing.T, steps string) string {
	t.Helper()
	patch := "  - {action: churn, kind: patch, group: widgets, count: 5,"
	i := strings.Index(objectsBase, patch)
	j := strings.Index(objectsBase, "  - {waitFor:")
	if i < 0 || j < i {
		t.Fatal("test bug: objectsBase's timeline changed")
	}
	return objectsBase[:i] + steps + objectsBase[j:]
}

func TestParseCreateAndDeleteChurn(t *testing.T) {
	s, err := Parse("o.yaml", []byte(lifecycleTimeline(t, `  - {action: churn, kind: create, group: widgets, count: 3, mutations: [CreateTargetGroup]}
  - {action: churn, kind: delete, group: widgets, count: 23, mutations: [DeleteTargetGroup]}
  - {action: churn, kind: create, group: widgets, applied: "aws != null && ref('widgets', object.metadata.name) != null"}
`)))
	if err != nil {
		t.Fatal(err)
	}
	c, errs := CompileObjects(s)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	_, create1 := c.Churn[1].(*objects.Creator)
	_, delete2 := c.Churn[2].(*objects.Deleter)
	_, create3 := c.Churn[3].(*objects.Creator)
	if !create1 || !delete2 || !create3 || s.Timeline[3].Count != 1 {
		t.Fatalf("compiled %+v, timeline %+v: want creates at 1 and 3 (count 1 by default), a delete at 2", c, s.Timeline)
	}
}

// Create and delete steps are checked against the group's size as the earlier steps leave it.
func TestParseCreateAndDeleteErrors(t *testing.T) {
	cases := []struct{ name, steps, want string }{
		{"create unknown group", `  - {action: churn, kind: create, group: gizmos}
`, `o.yaml:27:35: timeline[1].group: "gizmos" is not a group of fleet.objects`},
		{"delete more than the group has", `  - {action: churn, kind: delete, group: widgets, count: 21}
`, `timeline[1].count: must be between 1 and 20 (the size of group widgets after the earlier steps), got 21`},
		{"delete more than earlier steps left", `  - {action: churn, kind: create, group: widgets, count: 2}
  - {action: churn, kind: delete, group: widgets, count: 20}
  - {action: churn, kind: delete, group: widgets, count: 3}
`, `o.yaml:29:51: timeline[3].count: must be between 1 and 2`},
		{"patch more than deletes left", `  - {action: churn, kind: delete, group: widgets, count: 18}
  - {action: churn, kind: patch, group: widgets, count: 3, patch: {spec: {port: 81}}, applied: "true"}
`, `timeline[2].count: must be between 1 and 2`},
		{"zero count", `  - {action: churn, kind: create, group: widgets, count: 0}
`, `timeline[1].count: must be between 1 and`},
		{"negative count", `  - {action: churn, kind: delete, group: widgets, count: -1}
`, `timeline[1].count: must be between 1 and 20`},
		{"create past the bound", `  - {action: churn, kind: create, group: widgets, count: 99990}
`, `timeline[1].count: must be between 1 and 99980`},
		{"delete takes no applied", `  - {action: churn, kind: delete, group: widgets, applied: "true"}
`, `timeline[1].applied: does not apply to churn kind delete`},
		{"create takes no patch", `  - {action: churn, kind: create, group: widgets, patch: {spec: {port: 1}}}
`, `timeline[1].patch: applies to churn kind patch only`},
		{"reference to an unknown group", `  - {action: churn, kind: create, group: widgets, applied: "ref('gizmos', 'x') != null"}
`, `timeline[1].applied: does not compile: ref: unknown group or kind "gizmos"`},
		{"applied field typo", `  - {action: churn, kind: create, group: widgets, applied: "object.spec.prot == 1"}
`, `o.yaml:27:51: timeline[1].applied: does not compile`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("o.yaml", []byte(lifecycleTimeline(t, tc.steps)))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
			assertPlaced(t, err)
		})
	}
}
