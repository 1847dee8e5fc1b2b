package envtestassets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirExplicitAndEnv(t *testing.T) {
	good := t.TempDir()
	for _, b := range binaries {
		if err := os.WriteFile(filepath.Join(good, b), []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	empty := t.TempDir()

	if got, err := Dir(good); err != nil || got != good {
		t.Fatalf("Dir(good) = %q, %v; want %q", got, err, good)
	}
	_, err := Dir(empty)
	if !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "make envtest-assets") {
		t.Fatalf("Dir(empty) error = %v; want ErrMissing naming make envtest-assets", err)
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
	t.Setenv(EnvVar, "")
	t.Chdir(t.TempDir())
	if _, err := Dir(""); !errors.Is(err, ErrMissing) {
		t.Fatalf("Dir(\"\") beside an empty k8s/%s: err = %v; want ErrMissing", Version, err)
	}
	for _, b := range binaries {
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Dir(""); err != nil || got != dir {
		t.Fatalf("Dir(\"\") outside a repository = %q, %v; want %q", got, err, dir)
	}
}
