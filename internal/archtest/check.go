package archtest

import (
	"fmt"
	"slices"
	"strings"
)

// Package is one package of the module as `go list -json` reports it: its import path and the
// import paths of its production, in-package test and external test imports.
type Package struct {
	ImportPath string
	// Dir and GoFiles locate the package's non-test sources, for the shape check.
	Dir          string
	GoFiles      []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// Violation is a dependency a rule forbids: Path runs from the importing package to the forbidden
// one, one import edge per step, so its first edge is the one to remove or reroute.
type Violation struct {
	Rule Rule
	Path []string
	Test bool
}

func (v Violation) String() string {
	kind := "imports"
	if v.Test {
		kind = "imports in its tests"
	}
	via := ""
	if len(v.Path) > 2 {
		via = " via " + strings.Join(v.Path, " → ")
	}
	return fmt.Sprintf("%s %s %s (%s → %s)%s: %s", v.Path[0], kind, v.Path[len(v.Path)-1],
		v.Rule.From, LayerOf(v.Path[len(v.Path)-1]), via, v.Rule.Why)
}

// Check applies rules to the packages of module (its path) and returns every violation, each
// reported at the edge where the import leaves the importer's layer: an edge within a layer is
// reported where the chain leaves it, not again for every package before it. Paths in the result
// are relative to module.
func Check(module string, pkgs []Package, rules []Rule) []Violation {
	g := graph{prod: map[string][]string{}}
	for _, p := range pkgs {
		rel, ok := relative(module, p.ImportPath)
		if !ok {
			continue
		}
		g.prod[rel] = g.within(module, p.Imports)
	}
	var out []Violation
	for _, p := range pkgs {
		rel, ok := relative(module, p.ImportPath)
		if !ok {
			continue
		}
		tests := g.within(module, append(slices.Clone(p.TestImports), p.XTestImports...))
		for _, r := range rules {
			if r.From != LayerOf(rel) {
				continue
			}
			out = append(out, g.violations(rel, g.prod[rel], r, false)...)
			if !r.ProductionOnly {
				out = append(out, g.violations(rel, tests, r, true)...)
			}
		}
	}
	return out
}

// graph is the module's production import graph, by package path relative to the module.
type graph struct{ prod map[string][]string }

// within keeps the module's own packages of imports, relative to module, sorted and once each.
func (g graph) within(module string, imports []string) []string {
	var out []string
	for _, imp := range imports {
		if rel, ok := relative(module, imp); ok {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// violations follows each of from's imports that leaves from's layer and reports the first path
// to every package of a layer r forbids.
func (g graph) violations(from string, imports []string, r Rule, test bool) []Violation {
	var out []Violation
	for _, imp := range imports {
		if imp == from || LayerOf(imp) == r.From {
			continue
		}
		for _, path := range g.reach(imp) {
			if slices.Contains(r.Never, LayerOf(path[len(path)-1])) {
				out = append(out, Violation{Rule: r, Path: append([]string{from}, path...), Test: test})
			}
		}
	}
	return out
}

// reach returns a shortest path from start to every package it depends on, start included,
// in breadth-first order.
func (g graph) reach(start string) [][]string {
	paths := [][]string{{start}}
	seen := map[string]bool{start: true}
	for i := 0; i < len(paths); i++ {
		last := paths[i][len(paths[i])-1]
		for _, next := range g.prod[last] {
			if !seen[next] {
				seen[next] = true
				paths = append(paths, append(slices.Clone(paths[i]), next))
			}
		}
	}
	return paths
}

// relative is importPath relative to module, and whether it is in the module at all.
func relative(module, importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(importPath, module+"/")
	return rel, ok
}
