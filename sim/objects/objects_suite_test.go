package objects

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/restartsim/restartsim/internal/testenv"
)

// The envtest API server, with testdata/crds installed, is started by the first test that needs it; the
// unit tests run without envtest assets.
var (
	envOnce   sync.Once
	sharedEnv *testenv.Env
	envErr    error
)

// cluster returns the package's envtest API server, starting it on first use.
func cluster(t testing.TB) *testenv.Env {
	t.Helper()
	testenv.RequireAssets(t)
	envOnce.Do(func() { sharedEnv, envErr = testenv.Start("testdata/crds") })
	if envErr != nil {
		t.Fatal(envErr)
	}
	return sharedEnv
}

// TestMain stops the API server after the tests if one of them started it.
func TestMain(m *testing.M) {
	code := m.Run()
	if sharedEnv != nil {
		if err := sharedEnv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping envtest:", err)
		}
	}
	os.Exit(code)
}
