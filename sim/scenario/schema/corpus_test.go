package schema

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"

	"github.com/restartsim/restartsim/sim/scenario"
)

// The schema and validate judge every file of testdata/corpus alike: an editor that marks a
// scenario red is right that restartsim validate refuses it, and one it passes, validate takes.
// (A YAML file the JSON conversion refuses, such as one with a duplicate key, counts as refused.)
func TestSchemaAndValidateAgree(t *testing.T) {
	s := compile(t)
	files, err := filepath.Glob("testdata/corpus/*.yaml")
	if err != nil || len(files) < 20 {
		t.Fatalf("%d corpus files, %v", len(files), err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, verr := scenario.Parse(filepath.Base(f), data)
		var serr error
		if j, err := yaml.YAMLToJSONStrict(data); err != nil {
			serr = err
		} else if v, err := jsv.UnmarshalJSON(bytes.NewReader(j)); err != nil {
			serr = err
		} else {
			serr = s.Validate(v)
		}
		if (verr == nil) != (serr == nil) {
			t.Errorf("%s: validate %s, the schema %s", f, verdict(verr), verdict(serr))
		}
		if want := strings.HasPrefix(filepath.Base(f), "valid") || strings.Contains(f, "-ok"); want != (verr == nil) {
			t.Errorf("%s: validate %s", f, verdict(verr))
		}
	}
}

func verdict(err error) string {
	if err == nil {
		return "passes"
	}
	return "refuses: " + strings.ReplaceAll(err.Error(), "\n", " ")
}
