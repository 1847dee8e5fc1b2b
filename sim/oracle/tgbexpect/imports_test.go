package tgbexpect

import (
	"go/build"
	"strings"
	"testing"
)

// The expectation comes from the cluster alone: of this module the package imports only the CRD
// types, the kubelet's readiness rules and the provider-ID format (a fact of AWS's cloud provider with
// tests of its own), never a controller or the fleet that made the objects.
func TestImportsNeitherControllerNorFleet(t *testing.T) {
	const module = "github.com/restartsim/restartsim/"
	allowed := map[string]bool{module + "controller/api/v1beta1": true, module + "sim/kubesim": true, module + "internal/providerid": true}
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkg.Imports {
		if strings.HasPrefix(p, module) && !allowed[p] {
			t.Errorf("imports %s", p)
		}
	}
}
