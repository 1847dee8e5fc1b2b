package testenv

import (
	"testing"

	"github.com/restartsim/restartsim/internal/envtestassets"
)

// RequireAssets skips an integration test in -short mode or when the envtest assets are missing,
// so that unit tests run on a machine without them.
func RequireAssets(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test")
	}
	if _, err := envtestassets.Dir(""); err != nil {
		t.Skip(err)
	}
}
