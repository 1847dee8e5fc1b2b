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
