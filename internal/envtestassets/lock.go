package envtestassets

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// lockDir takes dir/.lock, so two Ensure calls (two processes, or two goroutines) never build into
// one directory at once. A busy lock is retried every poll until ctx ends, after one line saying
// what it waits for. The returned function releases it.
func lockDir(ctx context.Context, dir string, progress io.Writer, poll time.Duration) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	release := func() { _ = unlockFile(f); f.Close() }
	for waited := false; ; waited = true {
		ok, err := tryLockFile(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
		}
		if ok {
			return release, nil
		}
		if !waited {
			fmt.Fprintf(progress, "waiting for another restartsim assets building into %s\n", dir)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
}
