package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

func TestSimulateBadScenarioExitsTwoAndCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: restartsim/v1\nkind: Scenario\nname: bad\ntimeScale: 0\nfleet: {targetGroupBindings: -1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"simulate", "-f", bad, "--out", out},
		{"simulate", "-f", filepath.Join(dir, "missing.yaml"), "--out", out},
		{"simulate", "--out", out, "--install-crds"}, // the built-in quickstart, with a flag it refuses
	} {
		if code := Main(args); code != ExitBadInput {
			t.Errorf("%v: exit code %d, want %d", args, code, ExitBadInput)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output folder was created for bad input: %v", err)
	}
}

// Every shipped scenario is a valid file. What the host must hold for it (a built bin/restartsim, a
// baseline binary given by flag, a controller's binary by environment) is checked when it runs.
func TestSimulateShippedScenariosValidate(t *testing.T) {
	files, _ := filepath.Glob("../../../scenarios/*.yaml")
	for _, f := range files {
		if _, err := scenario.LoadContext(context.Background(), f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestSimulateExitCodes(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{&results.ViolationError{Kind: results.ViolationInvariant}, ExitInvariantViolated},
		{&results.ViolationError{Kind: results.ViolationUnapplied}, ExitInvariantViolated},
		{&results.ViolationError{Kind: results.ViolationThreshold}, ExitThresholdBreached},
		{fmt.Errorf("wrapped: %w", runerr.BadInput(errors.New("x"))), ExitBadInput},
		{fmt.Errorf("strategy a: %w", &results.ViolationError{Kind: results.ViolationThreshold}), ExitThresholdBreached},
		{errors.New("boom"), ExitFailure},
	}
	for _, tc := range cases {
		var ee *ExitError
		if err := exitFor(tc.err); !errors.As(err, &ee) || ee.Code != tc.want {
			t.Errorf("exitFor(%v) = %v, want code %d", tc.err, err, tc.want)
		}
	}
	if exitFor(nil) != nil {
		t.Error("exitFor(nil) != nil")
	}
}

// A scenario that never ends (/dev/zero) is refused at once; one read from a pipe whose writer
// stays silent gives up at the first SIGTERM, which exits 130 like every interrupted command.
func TestSimulateUnreadableScenario(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if code := Main([]string{"simulate", "-f", "/dev/zero", "--out", out}); code != ExitBadInput {
		t.Errorf("-f /dev/zero: exit %d, want %d", code, ExitBadInput)
	}
	fifo := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	returned := make(chan struct{})
	go func() {
		// Opening for writing returns once simulate has opened the pipe for reading: it reads.
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close() // open and silent until simulate returned
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		<-returned
	}()
	code := Main([]string{"simulate", "-f", fifo, "--out", out})
	close(returned)
	if code != ExitInterrupted {
		t.Errorf("-f silent pipe, SIGTERM: exit %d, want %d", code, ExitInterrupted)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output folder created: %v", err)
	}
}
