package lbexpect

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The expectation never comes from a controller's code: of this module the package imports only
// the CRD types (controller/api/v1beta1, plain structs), whose own imports are outside the module.
func TestImportsNoControllerCode(t *testing.T) {
	const module = "github.com/restartsim/restartsim/"
	allowed := map[string]bool{module + "controller/api/v1beta1": true}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) && !allowed[p] {
				t.Errorf("%s imports %s", name, p)
			}
		}
	}
}
