package scenario

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePlaceholders(t *testing.T) {
	tests := []struct {
		name string
		edit func(string) string
		want []string // file:line:column: path: ...
	}{
		{"top-level string", func(s string) string {
			return strings.Replace(s, "name: t\n", "name: 'TODO(restartsim): name the scenario'\n", 1)
		}, []string{"t.yaml:3:7: name: placeholder left to fill in: TODO(restartsim): name the scenario"}},
		{"where a number belongs", func(s string) string {
			return strings.Replace(s, "targetGroupBindings: 10", `targetGroupBindings: "TODO(restartsim): how many"`, 1)
		}, []string{"t.yaml:10:24: fleet.targetGroupBindings: placeholder left to fill in: TODO(restartsim): how many"}},
		{"in a list", func(s string) string {
			return strings.Replace(s, "{name: b}", `{name: b, throttle: " TODO(restartsim): x"}`, 1)
		}, []string{"t.yaml:16:27: controller.strategies[1].throttle: placeholder left to fill in: TODO(restartsim): x"}},
		{"not at the start is text", func(s string) string {
			return strings.Replace(s, "name: t\n", "name: t\ndescription: 'see TODO(restartsim): later'\n", 1)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(tt.edit(base)))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %v, want an ErrorList", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// Every placeholder of an object template is reported, each at its own line.
func TestParsePlaceholdersInTemplate(t *testing.T) {
	const file = `apiVersion: restartsim/v1
kind: Scenario
name: t
fleet:
  targetGroupBindings: 0
  objects:
    - name: widgets
      count: 1
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: 'w-{{.Index}}'}
        data:
          a: 'TODO(restartsim): a'
          b: ok
          c: 'TODO(restartsim): c'
controller:
  strategies: [{name: a}]
timeline:
  - {action: restart}
`
	_, err := Parse("t.yaml", []byte(file))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("error %v, want two placeholders", err)
	}
	for i, want := range []string{"t.yaml:14:14: fleet.objects[0].template.data.a:", "t.yaml:16:14: fleet.objects[0].template.data.c:"} {
		if !strings.HasPrefix(list[i].Error(), want) {
			t.Errorf("error %d = %q, want prefix %q", i, list[i], want)
		}
	}
}
