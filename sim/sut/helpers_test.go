package sut

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/restartsim/restartsim/internal/envtestassets"
)

// TestMain silences controller-runtime's global logger, which the in-process replicas log through.
func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// requireEnvtest skips an integration test in -short mode or without envtest assets.
func requireEnvtest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test")
	}
	if _, err := envtestassets.Dir(""); err != nil {
		t.Skip(err)
	}
}
