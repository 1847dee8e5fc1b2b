package env

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/restartsim/restartsim/internal/regularfile"
	"github.com/restartsim/restartsim/sim/objects"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/restartsim/restartsim/controller"
)

// loadCRDs reads the harness's CRDs from dir (empty: the ones built into the binary), then the
// extra files and directories: an extra CRD replaces one of the same name (a controller under test
// brings its own schema of a shared kind, which must be what it is measured against).
func loadCRDs(dir string, extra []string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var order []string
	byName := map[string]*apiextensionsv1.CustomResourceDefinition{}
	paths := extra
	if dir != "" {
		paths = append([]string{dir}, extra...)
	}
	sets := make([][]*apiextensionsv1.CustomResourceDefinition, 0, len(paths)+1)
	if dir == "" {
		builtIn, err := builtInCRDs()
		if err != nil {
			return nil, err
		}
		sets = append(sets, builtIn)
	}
	for _, p := range paths {
		crds, err := readSomeCRDs(p)
		if err != nil {
			return nil, err
		}
		sets = append(sets, crds)
	}
	for _, crds := range sets {
		for _, c := range crds {
			if _, ok := byName[c.Name]; !ok {
				order = append(order, c.Name)
			}
			byName[c.Name] = c
		}
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(order))
	for i, n := range order {
		out[i] = byName[n]
	}
	return out, nil
}

// CheckCRDs reads path as Start reads an extra CRD path (a file, or a directory's .yaml, .yml and
// .json files) and fails where Start would: nothing readable, or no CustomResourceDefinition in it.
func CheckCRDs(path string) error {
	_, err := readSomeCRDs(path)
	return err
}

// readSomeCRDs is readCRDs of a path that must hold at least one CustomResourceDefinition.
func readSomeCRDs(path string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	crds, err := readCRDs(path)
	if err == nil && len(crds) == 0 {
		err = fmt.Errorf("CRDs %s: no CustomResourceDefinition found", path)
	}
	return crds, err
}

// readCRDs reads the CustomResourceDefinitions of a file, or of a directory's .yaml, .yml and .json
// files (not recursive). Documents of other kinds are skipped.
func readCRDs(path string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("CRDs: %w", err)
	}
	files := []string{path}
	if st.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, fmt.Errorf("CRDs: %w", err)
		}
		files = files[:0]
		for _, e := range entries {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".yaml", ".yml", ".json":
				if !e.IsDir() {
					files = append(files, filepath.Join(path, e.Name()))
				}
			}
		}
		sort.Strings(files)
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		data, err := regularfile.ReadFile(f, objects.MaxCRDFileBytes)
		if err != nil {
			return nil, fmt.Errorf("CRDs: %w", err)
		}
		crds, err := decodeCRDs(f, data)
		if err != nil {
			return nil, err
		}
		out = append(out, crds...)
	}
	return out, nil
}

// builtInCRDs are the controller's CRDs, embedded in the binary.
func builtInCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	for i, m := range controller.CRDManifests() {
		crds, err := decodeCRDs(fmt.Sprintf("built into the binary (%d)", i+1), m)
		if err != nil {
			return nil, err
		}
		out = append(out, crds...)
	}
	return out, nil
}

// decodeCRDs decodes the CustomResourceDefinitions of a YAML or JSON stream named name; documents
// of other kinds are skipped.
func decodeCRDs(name string, data []byte) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var c apiextensionsv1.CustomResourceDefinition
		if err := dec.Decode(&c); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("CRDs %s: %w", name, err)
		}
		if c.Kind == "CustomResourceDefinition" && c.Name != "" {
			out = append(out, &c)
		}
	}
}
