package sim

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// An external controller that signs for another region than fakeaws serves has every call refused: the
// warm-up ends within a minute, as bad input, naming the refusal and the region to give it.
func TestRefusalWatchEndsWarmUp(t *testing.T) {
	testenv.RequireAssets(t)
	bin := filepath.Join(t.TempDir(), "restartsim")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/restartsim").CombinedOutput(); err != nil {
		t.Fatalf("building the test controller: %v\n%s", err, out)
	}
	sc, err := scenario.Parse("it.yaml", []byte(strings.Replace(header, "timeScale: 10", "timeScale: 1", 1)+`controller:
  external:
    command: [`+bin+`, controller, "--kubeconfig={{.Kubeconfig}}", "--aws-endpoint={{.AWSEndpoint}}", "--aws-region=eu-west-1",
      "--aws-access-key-id={{.AccessKeyID}}", "--aws-secret-access-key={{.SecretAccessKey}}", "--vpc-id={{.VpcID}}",
      "--metrics-bind-address=127.0.0.1:{{.MetricsPort}}", "--health-probe-bind-address=127.0.0.1:{{.HealthPort}}"]
timeline:
  - {action: restart, mode: crash}
  - {waitFor: steadyState, timeout: 5m}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := newRunConfig(Options{Scenario: sc, Progress: io.Discard, Stdout: io.Discard})
	start := time.Now()
	_, err = runStrategy(ctx, o, sc, arm{st: scenario.Strategy{Name: "external"}, ext: sc.Controller.External}, sc.Seed, t.TempDir(), nil, nil)
	took := time.Since(start)
	if err == nil || !runerr.IsBadInput(err) {
		t.Fatalf("run ended with %v, want bad input", err)
	}
	for _, want := range []string{"warm-up: the controller makes no progress", "SignatureDoesNotMatch",
		"not 'eu-west-1'", `signed for region "eu-west-1"; fakeaws serves "us-west-2"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if took > time.Minute {
		t.Errorf("the run took %s to fail, want under a minute", took.Round(time.Second))
	}
	t.Logf("failed after %s: %v", took.Round(time.Second), err)
}

// A controller that gives every object the same terminal error, and calls AWS no more, ends the warm-up
// naming the condition's message.
func TestProgressWatchEndsWarmUpOnOneError(t *testing.T) {
	testenv.RequireAssets(t)
	crds, err := filepath.Abs("objects/testdata/crds/widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(widgetScenario, crds, os.Args[0], widgetControllerEnv)
	text = strings.Replace(text, `WIDGET_METRICS:`, `WIDGET_TERMINAL: "the health check path is not allowed", WIDGET_METRICS:`, 1)
	sc, err := scenario.Parse("stuck-it.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	_, err = Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Progress: io.Discard, Stdout: io.Discard, NoReport: true})
	took := time.Since(start)
	if err == nil || !runerr.IsBadInput(err) {
		t.Fatalf("run ended with %v, want bad input", err)
	}
	for _, want := range []string{"all 60 objects it has not made ready carry the condition", "Terminal: the health check path is not allowed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if took > 2*time.Minute { // envtest's start and the fleet included
		t.Errorf("the run took %s to fail, want well within the warm-up's allowance", took.Round(time.Second))
	}
	t.Logf("failed after %s: %v", took.Round(time.Second), err)
}
