package sim

import (
	"context"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/go-logr/logr"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/sim/scenario"
)

// A run reads its Options and never writes them, nor anything they point to: after Run, the
// caller's Options and scenario equal a copy made from the same input that no run touched. The
// run picks one of two strategies, so the scenario it runs is a selection of the caller's.
func TestRunLeavesOptionsAsTheyWere(t *testing.T) {
	testenv.RequireAssets(t)
	const yaml = header + `controller:
  strategies: [{name: ckpt, checkpoint: annotation}, {name: none, checkpoint: none}]
timeline:
  - {action: restart, mode: crash}
  - {waitFor: steadyState, timeout: 2m}
`
	out, clock := t.TempDir(), clocktesting.NewFakePassiveClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	options := func() Options {
		sc, err := scenario.Parse("it.yaml", []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		return Options{Scenario: sc, Strategies: []string{"ckpt"}, OutDir: out, Stdout: io.Discard, Progress: io.Discard,
			Logger: logr.Discard(), Clock: clock, NoReport: true}
	}
	opts, want := options(), options()
	// The scenario holds its compiled objects, whose CEL programs reach error-typed fields inside
	// cel-go: equal inputs compile to deeply equal values, which is what is compared here.
	if !reflect.DeepEqual(opts, want) { //nolint:govet // see above
		t.Fatal("two Options made from the same input differ before any run")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Results.Strategies); n != 1 {
		t.Fatalf("ran %d strategies, want the one selected", n)
	}
	if !reflect.DeepEqual(opts, want) { //nolint:govet // see above
		t.Errorf("Run changed its Options:\n got %+v\nwant %+v", opts, want)
	}
	if !reflect.DeepEqual(opts.Scenario, want.Scenario) { //nolint:govet // see above
		t.Errorf("Run changed the scenario:\n got %+v\nwant %+v", *opts.Scenario, *want.Scenario)
	}
}

// Options are defaulted in one place, once per Run (and per Check): only Run and Check make a
// runConfig (newRunConfig, one call each), nothing else builds one, and no code but newRunConfig
// assigns to a field of Options or runConfig. Everything below Run therefore reads the options
// Run defaulted, and none can default or change them again.
func TestOptionsDefaultedOnceAndNeverWritten(t *testing.T) {
	pkg, err := simPackage()
	if err != nil {
		t.Fatal(err)
	}
	named := func(name string) *types.Named { return pkg.Types.Scope().Lookup(name).Type().(*types.Named) }
	options, config := named("Options"), named("runConfig")
	makers := pkg.Types.Scope().Lookup("newRunConfig")
	isConfigField := func(obj types.Object) bool {
		v, ok := obj.(*types.Var)
		if !ok || !v.IsField() {
			return false
		}
		for _, st := range []*types.Struct{options.Underlying().(*types.Struct), config.Underlying().(*types.Struct)} {
			for f := range st.Fields() {
				if f == v {
					return true
				}
			}
		}
		return false
	}
	calls := map[string]int{}
	for _, f := range pkg.Syntax {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			where := func(n ast.Node) string { return pkg.Fset.Position(n.Pos()).String() }
			written := func(x ast.Expr) {
				if sel, ok := ast.Unparen(x).(*ast.SelectorExpr); ok && isConfigField(pkg.TypesInfo.Uses[sel.Sel]) && name != "newRunConfig" {
					t.Errorf("%s: %s writes the options' field %s", where(x), name, sel.Sel.Name)
				}
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && pkg.TypesInfo.Uses[id] == makers {
						calls[name]++
					}
				case *ast.CompositeLit:
					if types.Identical(pkg.TypesInfo.TypeOf(n), config) && name != "newRunConfig" {
						t.Errorf("%s: %s builds a runConfig itself; newRunConfig is the one place that defaults Options", where(n), name)
					}
				case *ast.AssignStmt:
					for _, lhs := range n.Lhs {
						written(lhs)
					}
				case *ast.IncDecStmt:
					written(n.X)
				case *ast.UnaryExpr:
					if n.Op == token.AND {
						written(n.X) // a pointer to a field could write it
					}
				}
				return true
			})
		}
	}
	if want := map[string]int{"Run": 1, "Check": 1}; !reflect.DeepEqual(calls, want) {
		t.Errorf("newRunConfig is called %v; want once by Run and once by Check", calls)
	}
}
