package sim

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/sim/scenario"
)

// TestInterruptedRunStopsAndMarksItsOutput cancels a two-strategy run while its first strategy waits:
// the run returns promptly with ErrInterrupted, never starts the second strategy, removes the fleet
// snapshot's etcd data and marks the folder incomplete.
func TestInterruptedRunStopsAndMarksItsOutput(t *testing.T) {
	testenv.RequireAssets(t)
	sc, err := scenario.Parse("it.yaml", []byte(header+`controller:
  strategies: [{name: first, checkpoint: annotation}, {name: second, checkpoint: none}]
timeline:
  - {action: wait, duration: 10m}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		wg     sync.WaitGroup
		runErr error
	)
	log, timelineRuns := logSignal(`"msg"="running the timeline"`, `"strategy"="first"`)
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		_, runErr = Run(ctx, Options{Scenario: sc, OutDir: out, Stdout: io.Discard, Progress: io.Discard, NoReport: true, Logger: log})
	})
	// Interrupt once the first strategy runs its timeline (the long wait) on the converged fleet.
	select {
	case <-timelineRuns:
	case <-done:
		t.Fatalf("the run ended before the first strategy's timeline: %v", runErr)
	case <-time.After(testwait.Scale(t, 2*time.Minute)):
		cancel()
		wg.Wait()
		t.Fatalf("the first strategy's timeline did not start within 2 minutes: %v", runErr)
	}
	logs, _ := filepath.Glob(filepath.Join(out, "it", "*", "first", "aws-calls.jsonl"))
	if len(logs) == 0 {
		cancel()
		wg.Wait()
		t.Fatal("the first strategy runs its timeline without an aws-calls.jsonl")
	}
	runDir := filepath.Dir(filepath.Dir(logs[0]))
	cancel()
	interrupted := time.Now()
	wg.Wait()
	took := time.Since(interrupted)
	t.Logf("stopped %v after the interrupt", took.Round(time.Millisecond))
	if took > 30*time.Second {
		t.Errorf("the run took %v to stop after the interrupt", took)
	}
	if !IsInterrupted(runErr) {
		t.Fatalf("Run = %v, want ErrInterrupted", runErr)
	}
	if _, err := os.Stat(filepath.Join(runDir, "second")); err == nil {
		t.Error("the second strategy started after the interrupt")
	}
	if b, err := os.ReadFile(filepath.Join(runDir, IncompleteMarker)); err != nil || len(b) == 0 {
		t.Errorf("no %s marker: %v", IncompleteMarker, err)
	}
	if left, _ := filepath.Glob(filepath.Join(runDir, "fleet-*", "etcd")); len(left) > 0 {
		t.Errorf("fleet snapshot data left behind: %v", left)
	}
}

// logSignal is a logger whose channel closes at the first line (V(1) included) holding every one of
// parts as funcr writes them (`"msg"="step done"`, `"action"="churn"`): the sign that a run got
// that far.
func logSignal(parts ...string) (logr.Logger, <-chan struct{}) {
	seen := make(chan struct{})
	var once sync.Once
	return funcr.New(func(_, args string) {
		for _, p := range parts {
			if !strings.Contains(args, p) {
				return
			}
		}
		once.Do(func() { close(seen) })
	}, funcr.Options{Verbosity: 1}), seen
}
