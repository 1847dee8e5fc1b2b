package sim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrInterrupted marks a run whose context ended (SIGINT, SIGTERM) before it completed; its output
// folder holds an IncompleteMarker.
var ErrInterrupted = errors.New("interrupted")

// IsInterrupted reports whether err is a run cut short by its context.
func IsInterrupted(err error) bool { return errors.Is(err, ErrInterrupted) }

// IncompleteMarker is the file in an output folder whose run did not complete; it says why. Its
// results (if any) describe part of the run only.
const IncompleteMarker = "INCOMPLETE"

// scratchPatterns match the etcd data directories in an output folder (the fleet snapshots and each
// strategy's copy): hundreds of megabytes that only the run itself could use.
var scratchPatterns = []string{filepath.Join("*", "etcd"), filepath.Join("*", "repeat-*", "etcd")}

// MarkIncomplete marks the folder of a run that completed as incomplete, with the cause: a file
// written after it, such as a gate's JUnit report, could not be written.
func MarkIncomplete(dir string, cause error) { markIncomplete(dir, cause) }

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
