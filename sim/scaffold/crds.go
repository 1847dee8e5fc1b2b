package scaffold

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/internal/regularfile"
	"github.com/restartsim/restartsim/sim/objects"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// CRD is one kind of a CustomResourceDefinition at the version a scenario should use.
type CRD struct {
	// File is where the CRD was read.
	File     string
	Group    string
	Kind     string
	Plural   string
	Singular string
	// Version is the storage version when it is served, else the first served one.
	Version    string
	Namespaced bool
	// Schema is the version's OpenAPI schema; nil when the CRD has none.
	Schema *apiextensionsv1.JSONSchemaProps
	// Columns are the version's additional printer columns (they often name the Ready condition).
	Columns []apiextensionsv1.CustomResourceColumnDefinition
}

// APIVersion is group/version.
func (c *CRD) APIVersion() string { return c.Group + "/" + c.Version }

// ReadCRDs reads the CRDs of files, or of directories' .yaml, .yml and .json files (not their
// subdirectories), as cluster.crds names them. Documents that are not CRDs are skipped. Errors name
// the file and document.
func ReadCRDs(paths []string) ([]*CRD, error) {
	var out []*CRD
	for _, p := range paths {
		files, err := crdFiles(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := readLimited(f)
			if err != nil {
				return nil, err
			}
			crds, err := ParseCRDs(f, data)
			if err != nil {
				return nil, err
			}
			out = append(out, crds...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no CustomResourceDefinition in %s", strings.Join(paths, ", "))
	}
	return out, nil
}

func crdFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && slices.Contains([]string{".yaml", ".yml", ".json"}, filepath.Ext(e.Name())) {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	return files, nil
}

func readLimited(file string) ([]byte, error) {
	return regularfile.ReadFile(file, objects.MaxCRDFileBytes)
}

// ParseCRDs reads the CRDs of one file's YAML or JSON documents; other documents are skipped.
func ParseCRDs(file string, data []byte) ([]*CRD, error) {
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []*CRD
	for n := 1; ; n++ {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, n, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		crd, err := parseCRD(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, n, err)
		}
		if crd != nil {
			crd.File = file
			out = append(out, crd)
		}
	}
}

// parseCRD decodes one document; nil, nil for a document that is not a CRD.
func parseCRD(doc []byte) (*CRD, error) {
	var head struct{ APIVersion, Kind string }
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return nil, err
	}
	if head.Kind != "CustomResourceDefinition" {
		return nil, nil
	}
	if head.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("CRD of %s; only %s is supported", head.APIVersion, apiextensionsv1.SchemeGroupVersion)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(doc, &crd); err != nil {
		return nil, err
	}
	s := crd.Spec
	if s.Group == "" || s.Names.Kind == "" {
		return nil, fmt.Errorf("CRD %q has no spec.group or spec.names.kind", crd.Name)
	}
	i := slices.IndexFunc(s.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Served && v.Storage })
	if i < 0 {
		i = slices.IndexFunc(s.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Served })
	}
	if i < 0 {
		return nil, fmt.Errorf("CRD %s serves no version", crd.Name)
	}
	v := s.Versions[i]
	out := &CRD{Group: s.Group, Kind: s.Names.Kind, Plural: s.Names.Plural, Singular: s.Names.Singular, Version: v.Name,
		Namespaced: s.Scope != apiextensionsv1.ClusterScoped, Columns: v.AdditionalPrinterColumns}
	if out.Singular == "" {
		out.Singular = strings.ToLower(out.Kind)
	}
	if out.Plural == "" {
		out.Plural = out.Singular + "s"
	}
	if v.Schema != nil {
		out.Schema = v.Schema.OpenAPIV3Schema
	}
	return out, nil
}
