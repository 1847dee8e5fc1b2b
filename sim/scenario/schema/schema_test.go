package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite docs/scenario.schema.json and comments_gen.go")

const schemaFile = "../../../docs/scenario.schema.json"

// The committed comments and schema are what the types and their comments give now (go generate
// ./sim/scenario/schema && go test ./sim/scenario/schema -update, or make schema).
func TestGeneratedFilesUpToDate(t *testing.T) {
	t.Chdir("../../..")
	m, err := ReadComments()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		src, err := CommentsSource(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ScenarioDir, "schema", "comments_gen.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if !reflect.DeepEqual(m, comments) {
		t.Error("comments_gen.go is stale: run make schema")
	}
	got, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	path := "docs/scenario.schema.json"
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the generated schema: run make schema", path)
	}
}

// compile compiles the committed schema.
func compile(t *testing.T) *jsv.Schema {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsv.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsv.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(ID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(ID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance is a YAML scenario as the JSON the schema judges.
func instance(t *testing.T, data []byte) any {
	t.Helper()
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsv.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every shipped scenario is valid under the schema.
func TestShippedScenariosValidate(t *testing.T) {
	s := compile(t)
	var files []string
	err := filepath.WalkDir("../../../scenarios", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 10 {
		t.Fatalf("%d scenarios, %v", len(files), err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(instance(t, data)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// The schema refuses what the decoder refuses for its shape: unknown fields, wrong types, bad
// durations; and takes what it takes: durations, a bare 0, random, numbers as durations, templates.
func TestSchemaJudges(t *testing.T) {
	s := compile(t)
	const head = "apiVersion: restartsim/v1\nkind: Scenario\nname: x\n"
	for _, tc := range []struct {
		name, yaml string
		ok         bool
	}{
		{"minimal", "fleet: {targetGroupBindings: 10}\ntimeline: [{action: restart}]", true},
		{"durations", "timeline: [{action: restart, downtime: 5s, at: 1m30s}, {action: wait, duration: 0}]", true},
		{"random", "timeline: [{action: restart, at: random, within: 10s}]", true},
		{"threshold duration", "thresholds: [{metric: ttfmr_seconds, max: 5s}, {metric: aws_calls_total, max: 100}]", true},
		{"object template", "fleet: {objects: [{name: a, count: 1, template: {apiVersion: v1, kind: ConfigMap, metadata: {name: 'a-{{.Index}}'}}}]}", true},
		{"unknown field", "fleet: {targetGroupBindingz: 10}", false},
		{"wrong type", "fleet: {targetGroupBindings: many}", false},
		{"bad duration", "timeline: [{action: restart, downtime: 5 seconds}]", false},
		{"top-level typo", "timelines: []", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Validate(instance(t, []byte(head+tc.yaml)))
			if (err == nil) != tc.ok {
				t.Errorf("valid = %v, want %v (%v)", err == nil, tc.ok, err)
			}
		})
	}
}

// Descriptions come from the doc comments.
func TestDescriptions(t *testing.T) {
	out, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var command struct{ Description string }
	if err := json.Unmarshal(doc.Defs["External"].Properties["command"], &command); err != nil || !strings.Contains(command.Description, "argv") {
		t.Errorf("External.command's description: %q (%v)", command.Description, err)
	}
}
