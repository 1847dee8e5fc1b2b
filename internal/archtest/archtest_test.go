package archtest

import (
	"strings"
	"testing"
)

// TestModuleFollowsRules checks the module's import graph, tests included, against Rules.
func TestModuleFollowsRules(t *testing.T) {
	module, pkgs, err := List(t.Context(), ".")
	if err != nil {
		t.Fatal(err)
	}
	// A listing that lost the layers would pass every rule: make sure the graph is the module's.
	layers := map[Layer]bool{}
	for _, p := range pkgs {
		if rel, ok := relative(module, p.ImportPath); ok {
			layers[LayerOf(rel)] = true
		}
	}
	for _, l := range []Layer{Cmd, RestartsimTest, SimRoot, SimSub, Controller, FakeAWS, Reports, Results, Predict, Internal} {
		if !layers[l] {
			t.Errorf("go list found no package of layer %s in %s", l, module)
		}
	}
	for _, v := range Check(module, pkgs, Rules) {
		t.Error(v)
	}
}

const mod = "example.com/m"

func pkg(path string, imports ...string) Package {
	p := Package{ImportPath: mod + "/" + path}
	for _, imp := range imports {
		p.Imports = append(p.Imports, mod+"/"+imp)
	}
	return p
}

// TestCheckNamesTheEdge checks that each kind of violation is found and reported at the edge where
// it leaves the importer's layer, with the path to the forbidden package.
func TestCheckNamesTheEdge(t *testing.T) {
	cases := []struct {
		name string
		pkgs []Package
		want []string
	}{
		{
			name: "direct",
			pkgs: []Package{pkg("controller", "fakeaws"), pkg("fakeaws")},
			want: []string{"controller imports fakeaws (controller → fakeaws): "},
		},
		{
			name: "through a helper",
			pkgs: []Package{pkg("controller/lb", "controller"), pkg("controller", "internal/ctrltest"), pkg("internal/ctrltest", "fakeaws"), pkg("fakeaws")},
			want: []string{"controller imports fakeaws (controller → fakeaws) via controller → internal/ctrltest → fakeaws: "},
		},
		{
			name: "sim subpackage imports the root",
			pkgs: []Package{pkg("sim", "sim/measure"), pkg("sim/actions", "sim/observe"), pkg("sim/observe", "sim"), pkg("sim/measure")},
			want: []string{"sim/observe imports sim (sim/* → sim (root)): "},
		},
		{
			name: "results imports a layer",
			pkgs: []Package{pkg("results", "internal/outfile", "reports/gate"), pkg("internal/outfile"), pkg("reports/gate")},
			want: []string{"results imports reports/gate (results → reports): "},
		},
		{
			name: "reports imports sim",
			pkgs: []Package{pkg("reports/gate", "sim/scenario"), pkg("sim/scenario")},
			want: []string{"reports/gate imports sim/scenario (reports → sim/*): "},
		},
		{
			name: "allowed",
			pkgs: []Package{pkg("cmd/app", "sim", "reports"), pkg("sim", "controller", "fakeaws", "results", "sim/env"), pkg("sim/env", "controller"), pkg("reports", "results"), pkg("results", "internal/outfile"), pkg("restartsimtest", "sim"), pkg("controller"), pkg("fakeaws"), pkg("internal/outfile")},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, v := range Check(mod, c.pkgs, Rules) {
				got = append(got, v.String())
			}
			if len(got) != len(c.want) {
				t.Fatalf("violations %q, want %d: %q", got, len(c.want), c.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("violation %q, want it to start with %q", got[i], c.want[i])
				}
			}
		})
	}
}

// TestCheckTests checks that test imports follow the rules but the production-only one.
func TestCheckTests(t *testing.T) {
	ctrl := pkg("controller")
	ctrl.XTestImports = []string{mod + "/controller", mod + "/internal/ctrltest"}
	ctrl.TestImports = []string{mod + "/sim"}
	pkgs := []Package{ctrl, pkg("internal/ctrltest", "fakeaws"), pkg("fakeaws"), pkg("sim")}
	got := Check(mod, pkgs, Rules)
	if len(got) != 1 || !got[0].Test || got[0].String() != "controller imports in its tests sim (controller → sim (root)): "+got[0].Rule.Why {
		t.Fatalf("violations %v, want only the controller's test import of sim", got)
	}
}

// TestModuleShape keeps every hand-written non-test file and function of the module within the
// shape limits.
func TestModuleShape(t *testing.T) {
	_, pkgs, err := List(t.Context(), ".")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, p := range pkgs {
		files += len(p.GoFiles)
	}
	if files < 100 {
		t.Fatalf("go list found %d non-test files: not the module", files)
	}
	problems, err := Shape(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestShapeFindsLongFilesAndFunctions(t *testing.T) {
	long := "package p\n\nfunc f() {\n" + strings.Repeat("\t_ = 1\n", MaxFuncLines) + "}\n" + strings.Repeat("// filler\n", MaxFileLines)
	got := fileShape("p.go", []byte(long))
	if len(got) != 2 || !strings.Contains(got[0], "lines, at most 400") || !strings.Contains(got[1], "func f is 82 lines") {
		t.Errorf("fileShape = %q, want the file and f named", got)
	}
	if got := fileShape("q.go", []byte("package q\n\nfunc g() {}\n")); len(got) != 0 {
		t.Errorf("fileShape of a short file = %q", got)
	}
}

// Only the marker before the package clause exempts a file; one that merely mentions it is measured.
func TestShapeExemptsOnlyGeneratedFiles(t *testing.T) {
	body := "func f() {\n" + strings.Repeat("\t_ = 1\n", MaxFuncLines) + "}\n"
	if got := fileShape("gen.go", []byte("// Code generated by tool. DO NOT EDIT.\n\npackage p\n\n"+body)); len(got) != 0 {
		t.Errorf("a generated file was measured: %q", got)
	}
	mention := "package p\n\nvar marker = \"// Code generated \"\n\n" + body
	if got := fileShape("hand.go", []byte(mention)); len(got) != 1 || !strings.Contains(got[0], "func f is 82 lines") {
		t.Errorf("fileShape of a hand-written file mentioning the marker = %q, want f measured", got)
	}
}
