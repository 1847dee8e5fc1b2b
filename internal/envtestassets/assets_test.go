package envtestassets

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fill makes dir hold the named binaries (empty scripts; Lookup only checks they are files).
func fill(t *testing.T, dir string, names ...string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range names {
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDirExplicitAndEnv(t *testing.T) {
	good := fill(t, t.TempDir(), binaries...)
	empty := t.TempDir()

	if got, err := Dir(good); err != nil || got != good {
		t.Fatalf("Dir(good) = %q, %v; want %q", got, err, good)
	}
	_, err := Dir(empty)
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "restartsim assets") {
		t.Fatalf("Dir(empty) error = %v; want ErrMissing naming restartsim assets", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error must be one line: %q", err)
	}

	t.Setenv(EnvVar, good)
	if got, err := Dir(""); err != nil || got != good {
		t.Fatalf("Dir(\"\") with %s = %q, %v; want %q", EnvVar, got, err, good)
	}
	t.Setenv(EnvVar, empty)
	if _, err := Dir(""); !errors.Is(err, ErrMissing) {
		t.Fatalf("Dir(\"\") with empty %s: err = %v; want ErrMissing", EnvVar, err)
	}
}

// TestLookupOrder fills some of the places Lookup looks at, in a temporary home, and checks which
// one wins: $KUBEBUILDER_ASSETS, setup-envtest's store under $XDG_DATA_HOME then ~/.local/share,
// the repository's bin/k8s, the user cache.
func TestLookupOrder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the XDG layout is Linux's")
	}
	plat := Version + "-" + runtime.GOOS + "-" + runtime.GOARCH
	places := map[string]string{
		"env":       "env",
		"xdg-data":  filepath.Join("xdg-data", "kubebuilder-envtest", "k8s", plat),
		"home-data": filepath.Join("home", ".local", "share", "kubebuilder-envtest", "k8s", plat),
		"repo":      filepath.Join("repo", "bin", "k8s", Version),
		"cache":     filepath.Join("xdg-cache", "restartsim", "k8s", Version),
	}
	cases := []struct {
		name    string
		filled  []string
		env     bool
		extra   []string
		partial string // a place holding kube-apiserver and etcd only
		want    string // "" for ErrMissing
	}{
		{name: "env wins over everything", filled: []string{"env", "xdg-data", "home-data", "repo", "cache"}, env: true, want: "env"},
		{name: "env set but empty: no fall-through", filled: []string{"xdg-data", "repo", "cache"}, env: true, want: ""},
		{name: "setup-envtest under XDG_DATA_HOME", filled: []string{"xdg-data", "home-data", "repo", "cache"}, want: "xdg-data"},
		{name: "setup-envtest under ~/.local/share", filled: []string{"home-data", "repo", "cache"}, want: "home-data"},
		{name: "repository bin/", filled: []string{"repo", "cache"}, want: "repo"},
		{name: "user cache", filled: []string{"cache"}, want: "cache"},
		{name: "nowhere", want: ""},
		{name: "extra binary skips a place without it", filled: []string{"cache"}, partial: "repo",
			extra: []string{KubeControllerManager}, want: "cache"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			abs := func(p string) string { return filepath.Join(root, places[p]) }
			for _, p := range tc.filled {
				fill(t, abs(p), append(append([]string{}, binaries...), tc.extra...)...)
			}
			if tc.partial != "" {
				fill(t, abs(tc.partial), binaries...)
			}
			fill(t, filepath.Join(root, "repo"))
			if err := os.WriteFile(filepath.Join(root, "repo", "go.mod"), []byte("module x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(root, "repo", "bin", "k8s"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", filepath.Join(root, "home"))
			t.Setenv("XDG_DATA_HOME", filepath.Join(root, "xdg-data"))
			t.Setenv("XDG_CACHE_HOME", filepath.Join(root, "xdg-cache"))
			t.Setenv(EnvVar, "")
			if tc.env {
				t.Setenv(EnvVar, abs("env"))
			}
			t.Chdir(filepath.Join(root, "repo"))

			got, err := Lookup(tc.extra...)
			if tc.want == "" {
				if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "`restartsim assets`") {
					t.Fatalf("Lookup = %+v, %v; want ErrMissing telling to run restartsim assets", got, err)
				}
				return
			}
			if err != nil || got.Dir != abs(tc.want) {
				t.Fatalf("Lookup = %+v, %v; want %s", got, err, abs(tc.want))
			}
		})
	}
}

// Outside any repository, the assets beside the executable (bin/k8s/<Version> for bin/restartsim)
// are found, so the CLI runs from any directory.
func TestDirBesideTheExecutable(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(filepath.Dir(exe), "k8s", Version)
	if _, err := os.Stat(dir); err == nil {
		t.Skipf("%s exists already", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skip(err) // a read-only test binary directory
	}
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(filepath.Dir(exe), "k8s")) })
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv(EnvVar, "")
	t.Chdir(t.TempDir())
	if _, err := Dir(""); !errors.Is(err, ErrMissing) {
		t.Fatalf("Dir(\"\") beside an empty k8s/%s: err = %v; want ErrMissing", Version, err)
	}
	fill(t, dir, binaries...)
	if got, err := Dir(""); err != nil || got != dir {
		t.Fatalf("Dir(\"\") outside a repository = %q, %v; want %q", got, err, dir)
	}
}
