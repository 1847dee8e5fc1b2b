package objects

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/restartsim/restartsim/internal/regularfile"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// LoadCatalog returns the built-in kinds plus the CRDs in paths (files, or directories of .yaml, .yml and
// .json files, as cluster.crds names them). Errors name the file.
func LoadCatalog(paths ...string) (*Catalog, error) {
	c := NewCatalog()
	for _, p := range paths {
		if err := c.AddPath(p); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// AddPath adds the CRDs of a file, or of a directory's .yaml, .yml and .json files (not its subdirectories).
// Documents that are not CRDs are skipped, as envtest skips them.
func (c *Catalog) AddPath(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	files := []string{path}
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		files = files[:0]
		for _, e := range entries {
			if !e.IsDir() && slices.Contains([]string{".yaml", ".yml", ".json"}, filepath.Ext(e.Name())) {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	for _, f := range files {
		if err := c.addFile(f); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// MaxCRDFileBytes bounds one CRD file: the largest real ones (Karpenter's, Gateway API's) are a few hundred
// KiB.
const MaxCRDFileBytes = 8 << 20

func (c *Catalog) addFile(file string) error {
	data, err := regularfile.ReadFile(file, MaxCRDFileBytes)
	if err != nil {
		return err
	}
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for n := 1; ; n++ {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return fmt.Errorf("document %d: %w", n, err)
		}
		if head.Kind != "CustomResourceDefinition" {
			continue
		}
		if head.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
			return fmt.Errorf("document %d: CRD of %s; only %s is supported", n, head.APIVersion, apiextensionsv1.SchemeGroupVersion)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(doc, &crd); err != nil {
			return fmt.Errorf("document %d: %w", n, err)
		}
		if err := c.AddCRD(&crd, file); err != nil {
			return fmt.Errorf("document %d: %w", n, err)
		}
	}
}
