package sim

import (
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
)

// fileGraph is which file of a package uses which names defined in another: uses[a][b] lists the
// names that a takes from b (package-level names, methods and fields alike).
type fileGraph struct {
	files []string
	uses  map[string]map[string][]string
}

// simPackage is this package's non-test files, parsed and type-checked once for every test that
// reads them.
var simPackage = sync.OnceValues(func() (*packages.Package, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("loading the package: %d packages", len(pkgs))
	}
	if len(pkgs[0].Errors) > 0 {
		return nil, fmt.Errorf("loading the package: %v", pkgs[0].Errors)
	}
	return pkgs[0], nil
})

// loadFileGraph records, for every identifier of the package's non-test files that refers to an
// object of the package itself, the file it is used in and the file that declares it.
func loadFileGraph(t *testing.T) fileGraph {
	t.Helper()
	pkg, err := simPackage()
	if err != nil {
		t.Fatal(err)
	}
	g := fileGraph{uses: map[string]map[string][]string{}}
	fileOf := func(pos token.Pos) string { return filepath.Base(pkg.Fset.Position(pos).Filename) }
	for _, f := range pkg.Syntax {
		g.files = append(g.files, fileOf(f.Pos()))
	}
	for id, obj := range pkg.TypesInfo.Uses {
		if obj == nil || obj.Pkg() != pkg.Types || !obj.Pos().IsValid() {
			continue
		}
		if _, isPkgName := obj.(*types.PkgName); isPkgName {
			continue
		}
		from, to := fileOf(id.Pos()), fileOf(obj.Pos())
		if from == to {
			continue
		}
		if g.uses[from] == nil {
			g.uses[from] = map[string][]string{}
		}
		if name := qualifiedName(obj); !slices.Contains(g.uses[from][to], name) {
			g.uses[from][to] = append(g.uses[from][to], name)
		}
	}
	sort.Strings(g.files)
	return g
}

// qualifiedName names a method or field with its type (strategyRun.measure), anything else alone.
func qualifiedName(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Func:
		if recv := o.Signature().Recv(); recv != nil {
			if named, ok := typeName(recv.Type()); ok {
				return named + "." + o.Name()
			}
		}
	case *types.Var:
		if o.IsField() {
			return "(field) " + o.Name()
		}
	}
	return obj.Name()
}

func typeName(t types.Type) (string, bool) {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok {
		return "", false
	}
	return n.Obj().Name(), true
}

// circles are the graph's strongly connected components of more than one file (Tarjan's
// algorithm), each sorted, in file order.
func (g fileGraph) circles() [][]string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range slices.Sorted(maps.Keys(g.uses[v])) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var scc []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			scc = append(scc, w)
			if w == v {
				break
			}
		}
		if len(scc) > 1 {
			sort.Strings(scc)
			out = append(out, scc)
		}
	}
	for _, f := range g.files {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// describe lists the uses among files, "a -> b: names", one line each.
func (g fileGraph) describe(files []string) string {
	var b strings.Builder
	for _, a := range files {
		for _, to := range slices.Sorted(maps.Keys(g.uses[a])) {
			if slices.Contains(files, to) {
				fmt.Fprintf(&b, "  %s -> %s: %s\n", a, to, strings.Join(g.uses[a][to], ", "))
			}
		}
	}
	return b.String()
}

// The package's files use each other one way only: a file never uses a name from a file that uses
// one of its own, directly or through others. A reader can then read the files bottom up, each
// before the ones that build on it.
func TestFilesUseEachOtherOneWay(t *testing.T) {
	g := loadFileGraph(t)
	for _, c := range g.circles() {
		t.Errorf("files that use each other in a circle: %s\n%s", strings.Join(c, ", "), g.describe(c))
	}
}
