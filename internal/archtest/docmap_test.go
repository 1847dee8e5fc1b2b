package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docRow is one row of docs/architecture.md's table of sim's packages: a package and the packages within
// sim it says it imports.
var docRow = regexp.MustCompile("^\\| `(sim(?:/[a-z0-9/]+)?)` \\| ([^|]*) \\|")

// TestArchitectureDocMatchesImports checks the architecture page's table of sim's packages against go list:
// every package of sim is a row, every row is a package, and the imports within sim each row lists are its
// real (non-test) imports, no more and no fewer. A refactor that moves an arrow fails here until the page
// is redrawn.
func TestArchitectureDocMatchesImports(t *testing.T) {
	module, pkgs, err := List(t.Context(), ".")
	if err != nil {
		t.Fatal(err)
	}
	real := map[string][]string{} // sim package → its imports within sim, relative to sim/
	for _, p := range pkgs {
		rel, ok := relative(module, p.ImportPath)
		if !ok || (rel != "sim" && !strings.HasPrefix(rel, "sim/")) || strings.Contains(rel, "/internal/") {
			continue
		}
		var in []string
		for _, imp := range p.Imports {
			if r, ok := relative(module, imp); ok && strings.HasPrefix(r, "sim/") && !strings.Contains(r, "/internal/") {
				in = append(in, strings.TrimPrefix(r, "sim/"))
			}
		}
		slices.Sort(in)
		real[rel] = in
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		m := docRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, cell := m[1], strings.TrimSpace(m[2])
		rows[name] = true
		got, ok := real[name]
		switch {
		case !ok:
			t.Errorf("docs/architecture.md lists %s, which is not a package", name)
		case name == "sim":
			// The root composes the subpackages ("all below"): nothing to compare arrow by arrow.
		default:
			if want := docImports(cell); !slices.Equal(want, got) {
				t.Errorf("docs/architecture.md says %s imports [%s] within sim; go list says [%s]", name, strings.Join(want, ", "), strings.Join(got, ", "))
			}
		}
	}
	for name := range real {
		if !rows[name] {
			t.Errorf("docs/architecture.md's table of sim's packages has no row for %s", name)
		}
	}
}

// docImports reads a table cell such as "objects (to compile the groups), workload (its defaults)" or "–".
func docImports(cell string) []string {
	cell = regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(cell, "")
	var out []string
	for _, f := range strings.Split(cell, ",") {
		if f = strings.TrimSpace(f); f != "" && f != "–" {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}
