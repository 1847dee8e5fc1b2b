package scaffold

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseCRDs reads any bytes as a CRD file: no panic, and every CRD it returns has a group, kind and version.
func FuzzParseCRDs(f *testing.F) {
	for _, p := range []string{"testdata/crds/ack/targetgroups.yaml", "testdata/crds/ack/listeners.yaml", "testdata/crds/widgets/widgets.yaml"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("kind: CustomResourceDefinition\napiVersion: apiextensions.k8s.io/v1\nspec: {group: g, names: {kind: K}, versions: [{name: v1, served: true}]}\n---\nkind: ConfigMap\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			t.Skip()
		}
		crds, err := ParseCRDs(filepath.Join("x", "f.yaml"), data)
		if err != nil {
			return
		}
		for _, c := range crds {
			if c.Group == "" || c.Kind == "" || c.Version == "" || c.Plural == "" {
				t.Fatalf("incomplete CRD %+v", c)
			}
			ready(c) // must not panic on any schema
		}
	})
}
