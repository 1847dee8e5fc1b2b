package controller

import (
	"embed"
	"io/fs"
)

// crdFiles holds the controller's CustomResourceDefinitions, built into every binary so that a
// run needs no checkout of this repository to install them.
//
//go:embed config/crd/*.yaml
var crdFiles embed.FS

// CRDManifests returns the controller's CRD manifests (YAML documents), in file-name order.
func CRDManifests() [][]byte {
	names, _ := fs.Glob(crdFiles, "config/crd/*.yaml") // sorted
	out := make([][]byte, len(names))
	for i, n := range names {
		out[i], _ = crdFiles.ReadFile(n) // embedded: cannot fail
	}
	return out
}
