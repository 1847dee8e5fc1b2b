package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/internal/envtestassets"
	"github.com/restartsim/restartsim/internal/envtestassets/envtestindex"
	"github.com/restartsim/restartsim/scenarios"
)

func TestAssetsBadFlagIsBadInput(t *testing.T) {
	for _, args := range [][]string{{"--with", "kubelet"}, {"--index", "ftp://mirror/envtest-releases.yaml"}, {"--index", "mirror"}} {
		if code := Main(append([]string{"assets"}, args...)); code != ExitBadInput {
			t.Errorf("%v: exit %d, want %d", args, code, ExitBadInput)
		}
	}
}

// runAssets runs restartsim assets with args, returning what it printed.
func runAssets(t *testing.T, args ...string) (string, string) {
	t.Helper()
	root := NewRootCommand()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"assets"}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("%v: %v (%s)", args, err, errOut.String())
	}
	return out.String(), errOut.String()
}

// On an empty machine, assets downloads from the index into setup-envtest's store, which every
// verb then finds; a second run finds it without a request. No go command: a build would fail.
func TestAssetsDownloadsIntoTheStoreOnce(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv(envtestassets.EnvVar, "")
	t.Setenv("PATH", "")
	t.Chdir(t.TempDir())
	if runtime.GOOS != "linux" {
		t.Skip("XDG_DATA_HOME places setup-envtest's store on Linux only")
	}
	v := envtestassets.Version
	srv := envtestindex.New(t, v, []string{v}, envtestindex.Archive(t, envtestindex.FakeBinaries()))
	want := filepath.Join(data, "kubebuilder-envtest", "k8s", v+"-"+runtime.GOOS+"-"+runtime.GOARCH)
	out, progress := runAssets(t, "--index", srv.IndexURL())
	if !strings.Contains(out, "ready in "+want+" (downloaded)") || !strings.Contains(progress, "MiB/s") {
		t.Fatalf("printed %q, progress %q; want a download into %s", out, progress, want)
	}
	served := srv.Requests.Load()
	out, _ = runAssets(t, "--index", srv.IndexURL(), "--print")
	if out != want+"\n" || srv.Requests.Load() != served {
		t.Errorf("second run printed %q after %d requests; want %s, none", out, srv.Requests.Load()-served, want)
	}
	if dir, err := envtestassets.Dir(""); err != nil || dir != want {
		t.Errorf("Dir: %s, %v; want %s", dir, err, want)
	}
}

// With no reachable index, assets falls back to the build, saying why; a build without the go
// command is exit 2 with a message that says so; nothing is built.
func TestAssetsWithoutGoIsBadInput(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envtestassets.EnvVar, dir) // lacks the binaries: restartsim assets builds into it
	// Nothing listens on port 1: the connection is refused, as for a machine without a route.
	t.Setenv(envtestassets.IndexEnvVar, "http://127.0.0.1:1/envtest-releases.yaml")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("PATH", "")
	var stderr bytes.Buffer
	if code := mainTo([]string{"assets"}, &stderr); code != ExitBadInput {
		t.Fatalf("exit %d, want %d (%s)", code, ExitBadInput, stderr.String())
	}
	if !strings.Contains(stderr.String(), "go command") || !strings.Contains(stderr.String(), "127.0.0.1:1") {
		t.Errorf("stderr %q names neither the failed index nor the go command", stderr.String())
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
