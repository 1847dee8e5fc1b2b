package sim

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
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
	wg.Go(func() {
		_, runErr = Run(ctx, Options{Scenario: sc, OutDir: out, Stdout: io.Discard, Progress: io.Discard, NoReport: true})
	})
	// Interrupt once the first strategy runs on the converged fleet.
	deadline := time.Now().Add(2 * time.Minute)
	var runDir string
	for runDir == "" {
		if time.Now().After(deadline) {
			cancel()
			wg.Wait()
			t.Fatalf("the first strategy did not start within 2 minutes: %v", runErr)
		}
		time.Sleep(200 * time.Millisecond)
		if logs, _ := filepath.Glob(filepath.Join(out, "it", "*", "first", "aws-calls.jsonl")); len(logs) > 0 {
			runDir = filepath.Dir(filepath.Dir(logs[0]))
		}
	}
	time.Sleep(time.Second)
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
