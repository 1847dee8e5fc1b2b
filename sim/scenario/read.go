package scenario

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/restartsim/restartsim/internal/regularfile"
)

// maxFileBytes bounds a scenario file.
const maxFileBytes = 1 << 20

// Stdin is the file name that reads standard input (-f -).
const Stdin = "-"

// StdinName names standard input in messages.
const StdinName = "<stdin>"

// DisplayName is how messages name the file path.
func DisplayName(path string) string {
	if path == Stdin {
		return StdinName
	}
	return path
}

// readStdin reads standard input like ReadFile a pipe: at most the limit and one byte, given up when
// ctx ends.
func readStdin(ctx context.Context) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(os.Stdin, maxFileBytes+1))
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("reading %s: %w", StdinName, r.err)
		}
		if len(r.data) > maxFileBytes {
			return nil, fmt.Errorf("%s is larger than 1 MiB, the most a scenario file may hold", StdinName)
		}
		return r.data, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("reading %s: %w", StdinName, ctx.Err())
	}
}

// ReadFile reads a scenario file of at most 1 MiB: a regular file or a pipe (a named one, or
// /dev/fd/N of a shell's process substitution); a device, socket or directory is refused before
// anything is read. No more than the limit and one byte is ever read, so an endless source fails
// at once. The read gives up when ctx ends, also while a named pipe waits for its writer, and
// returns an error wrapping ctx.Err().
func ReadFile(ctx context.Context, path string) ([]byte, error) {
	if path == Stdin {
		return readStdin(ctx)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	pipe := st.Mode()&fs.ModeNamedPipe != 0
	if !st.Mode().IsRegular() && !pipe {
		return nil, fmt.Errorf("%s is %s, not a regular file or a pipe", path, regularfile.Describe(st.Mode()))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := &cancellableRead{path: path, pipe: pipe, done: make(chan struct{})}
	go r.run()
	select {
	case <-r.done:
	case <-ctx.Done():
		r.cancel()
		return nil, fmt.Errorf("reading %s: %w", path, ctx.Err())
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.data) > maxFileBytes {
		return nil, fmt.Errorf("%s is larger than 1 MiB (%d bytes), the most a scenario file may hold", path, maxFileBytes)
	}
	return r.data, nil
}

// cancellableRead is one file read in a goroutine of its own: opening a named pipe blocks until a
// writer opens it, and reading it until the writer writes or closes, neither of which a context
// can interrupt.
type cancellableRead struct {
	path string
	pipe bool
	done chan struct{}
	data []byte
	err  error

	mu        sync.Mutex
	f         *os.File
	cancelled bool
}

func (r *cancellableRead) run() {
	defer close(r.done)
	f, err := os.Open(r.path)
	if err != nil {
		r.err = err
		return
	}
	defer f.Close()
	r.mu.Lock()
	if r.cancelled {
		r.mu.Unlock()
		return
	}
	r.f = f
	r.mu.Unlock()
	r.data, r.err = io.ReadAll(io.LimitReader(f, maxFileBytes+1))
}

// cancel lets a blocked read end: a read of an open pipe is woken by a deadline (Go polls pipes);
// an open that waits for the pipe's writer is released by opening the pipe for writing and closing
// it again, after which the read sees the end of the file. Nobody waits for the goroutine: in the
// unlikely case it is still about to open the pipe, it stays blocked until the process exits.
func (r *cancellableRead) cancel() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cancelled = true
	switch {
	case r.f != nil:
		_ = r.f.SetReadDeadline(time.Now())
	case r.pipe:
		if w, err := os.OpenFile(r.path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = w.Close()
		}
	}
}
