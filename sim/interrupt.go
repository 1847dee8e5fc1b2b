package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
)

// ErrInterrupted marks a run whose context ended (SIGINT, SIGTERM) before it completed; its output
// folder holds an IncompleteMarker.
var ErrInterrupted = errors.New("interrupted")

// IsInterrupted reports whether err is a run cut short by its context.
func IsInterrupted(err error) bool { return errors.Is(err, ErrInterrupted) }

// IncompleteMarker is the file in an output folder whose run did not complete; it says why. Its
// results (if any) describe part of the run only.
const IncompleteMarker = "INCOMPLETE"

// Run runs every strategy of the scenario (Repeats times each) and writes the output folder. A
// completed run whose controller broke an invariant or a threshold returns the report and a
// *ViolationError (invariants take precedence). A run whose context ends first starts nothing new
// (no API server, no strategy) and returns an error wrapping ErrInterrupted; that and any other
// failure leave IncompleteMarker in the folder and remove its etcd data, as a watcher process does
// should this process be killed outright.
func Run(ctx context.Context, opts Options) (*Report, error) {
	started := opts.setDefaults().Clock.Now() // names the output folder
	var rep *Report
	p, err := prepare(ctx, opts)
	dir := ""
	if err == nil {
		if dir, err = makeRunDir(p.o.OutDir, p.sc.Name, started); err != nil {
			err = runerr.BadInput(fmt.Errorf("output folder: %w", err))
		}
	}
	if err == nil {
		// Should this process be killed outright, the folder is marked and its etcd copies go all the same.
		w := env.StartWatcher()
		for _, pattern := range scratchPatterns {
			w.RemoveOnCrash(filepath.Join(dir, pattern))
		}
		w.NoteOnCrash(filepath.Join(dir, IncompleteMarker))
		defer w.Release(true)
		rep, err = runScenario(ctx, p, dir, started)
	}
	if ctx.Err() != nil && !IsInterrupted(err) {
		if err == nil {
			err = errors.New("the run's context ended before the run completed")
		}
		err = fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	var v *results.ViolationError
	if err == nil || errors.As(err, &v) || dir == "" {
		return rep, err
	}
	markIncomplete(dir, err)
	return rep, err
}

// scratchPatterns match the etcd data directories in an output folder (the fleet snapshots and each
// strategy's copy): hundreds of megabytes that only the run itself could use.
var scratchPatterns = []string{filepath.Join("*", "etcd"), filepath.Join("*", "repeat-*", "etcd")}

// markIncomplete writes the marker and drops the etcd data.
func markIncomplete(dir string, cause error) {
	for _, p := range scratchPatterns {
		matches, _ := filepath.Glob(filepath.Join(dir, p))
		for _, d := range matches {
			_ = os.RemoveAll(d)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, IncompleteMarker), []byte(fmt.Sprintf("This run did not complete: %v\n", cause)), 0o644)
}
