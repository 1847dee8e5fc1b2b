package app

import (
	"os"
	"path/filepath"
	"testing"
)

func TestClusterStatusWithoutClusterFails(t *testing.T) {
	if code := Main([]string{"cluster", "status", "--dir", t.TempDir()}); code != ExitFailure {
		t.Fatalf("exit code = %d, want %d", code, ExitFailure)
	}
}

func TestClusterUpWithoutControllerManagerIsBadEnvironment(t *testing.T) {
	assets := t.TempDir()
	for _, b := range []string{"etcd", "kube-apiserver"} { // kube-controller-manager missing
		if err := os.WriteFile(filepath.Join(assets, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if code := Main([]string{"cluster", "up", "--dir", dir, "--assets", assets}); code != ExitBadInput {
		t.Fatalf("exit code = %d, want %d", code, ExitBadInput)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("cluster up wrote %d entries before failing, want none", len(entries))
	}
}

func TestClusterDownWithoutClusterSucceeds(t *testing.T) {
	if code := Main([]string{"cluster", "down", "--dir", t.TempDir()}); code != ExitOK {
		t.Fatalf("exit code = %d, want %d", code, ExitOK)
	}
}
