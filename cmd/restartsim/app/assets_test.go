package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/internal/envtestassets"
	"github.com/restartsim/restartsim/scenarios"
)

func TestAssetsBadFlagIsBadInput(t *testing.T) {
	if code := Main([]string{"assets", "--with", "kubelet"}); code != ExitBadInput {
		t.Fatalf("--with kubelet: exit %d, want %d", code, ExitBadInput)
	}
}

// A build without the go command is exit 2 with a message that says so; nothing is built.
func TestAssetsWithoutGoIsBadInput(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envtestassets.EnvVar, dir) // lacks the binaries: restartsim assets builds into it
	t.Setenv("PATH", "")
	var stderr bytes.Buffer
	if code := mainTo([]string{"assets"}, &stderr); code != ExitBadInput {
		t.Fatalf("exit %d, want %d (%s)", code, ExitBadInput, stderr.String())
	}
	if !strings.Contains(stderr.String(), "go command") {
		t.Errorf("stderr %q does not name the go command", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); !os.IsNotExist(err) {
		t.Errorf("kube-apiserver appeared: %v", err)
	}
}

// With the binaries where restartsim looks ($KUBEBUILDER_ASSETS here), `assets --print` prints that
// directory alone and builds nothing.
func TestAssetsPrintsAFoundDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(envtestassets.EnvVar, dir)
	t.Setenv("PATH", "") // no go command: a build would fail
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"assets", "--print"}, dir + "\n"},
		{[]string{"assets"}, "found in " + dir + " ($KUBEBUILDER_ASSETS)"},
	} {
		root := NewRootCommand()
		var out, errOut bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errOut)
		root.SetArgs(tc.args)
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v (%s)", tc.args, err, errOut.String())
		}
		if !strings.Contains(out.String(), tc.want) || (tc.args[len(tc.args)-1] == "--print" && out.String() != tc.want) {
			t.Errorf("%v printed %q, want %q", tc.args, out.String(), tc.want)
		}
	}
}

// Without -f, simulate runs the quickstart built into the binary: no checkout needed.
func TestSimulateDefaultsToTheBuiltInQuickstart(t *testing.T) {
	t.Chdir(t.TempDir())
	o := &simulateOptions{}
	if err := o.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o.scenario.Name != "quickstart" || o.File != scenarios.QuickstartName {
		t.Fatalf("scenario %q from %q; want quickstart from %q", o.scenario.Name, o.File, scenarios.QuickstartName)
	}
}
