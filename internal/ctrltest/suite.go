// Package ctrltest is the fixture the controller packages' integration tests share: one fakeaws
// endpoint for the test binary, with short health and deregistration timers, and one envtest API
// server started on first use, so that a package's unit tests run without envtest's assets.
// Setting TGB_TEST_LOG writes the controllers' logs to stderr.
package ctrltest

import (
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testenv"
)

const (
	// Region is fakeaws's region; Key is both its access key ID and secret.
	Region = "us-west-2"
	Key    = "restartsim"
)

// Suite is one test binary's fakeaws endpoint and envtest API server.
type Suite struct {
	// CRDs is the directory of the CustomResourceDefinitions the API server installs.
	CRDs string

	AWS    *fakeaws.Server
	AWSURL string
	Logger logr.Logger

	srv     *httptest.Server
	envOnce sync.Once
	env     *testenv.Env
	envErr  error
}

// Start starts the fakeaws endpoint and sets controller-runtime's logger.
func (s *Suite) Start() error {
	s.Logger = logr.Discard()
	if os.Getenv("TGB_TEST_LOG") != "" {
		s.Logger = zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr))
	}
	ctrl.SetLogger(s.Logger)
	var err error
	s.AWS, err = fakeaws.New(fakeaws.Options{Region: Region, AccessKeyID: Key, SecretAccessKey: Key,
		Profile: fakeaws.ProfileUnlimited, HealthyAfter: 500 * time.Millisecond, DeregistrationDelay: time.Second})
	if err != nil {
		return err
	}
	s.srv = httptest.NewServer(s.AWS)
	s.AWSURL = s.srv.URL
	return nil
}

// Stop stops the API server, if it started, and the fakeaws endpoint.
func (s *Suite) Stop() {
	if s.env != nil {
		_ = s.env.Stop()
	}
	if s.srv != nil {
		s.srv.Close()
	}
}

// Env starts the API server on first use and fails t if it cannot run.
func (s *Suite) Env(t testing.TB) *testenv.Env {
	t.Helper()
	s.envOnce.Do(func() { s.env, s.envErr = testenv.Start(s.CRDs) })
	if s.envErr != nil {
		t.Fatal(s.envErr)
	}
	return s.env
}
