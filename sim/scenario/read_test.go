package scenario

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return p
}

// A device, a directory or a file over the limit is refused with its name, without reading more
// than the limit.
func TestReadFileRefuses(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, make([]byte, maxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero is a device, not a regular file or a pipe"},
		{t.TempDir(), "is a directory, not a regular file or a pipe"},
		{big, big + " is larger than 1 MiB"},
		{filepath.Join(t.TempDir(), "missing.yaml"), "no such file or directory"},
	} {
		if _, err := os.Stat(tc.path); tc.path == "/dev/zero" && err != nil {
			continue
		}
		_, err := ReadFile(context.Background(), tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadFile(%s) = %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
}

// An endless pipe is cut at the limit: the read stops after 1 MiB and a byte.
func TestReadFileEndlessPipe(t *testing.T) {
	fifo := mkfifo(t)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		chunk := make([]byte, 64<<10)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(chunk); err != nil {
				return // the reader closed the pipe
			}
		}
	}()
	_, err := ReadFile(context.Background(), fifo)
	if err == nil || !strings.Contains(err.Error(), fifo+" is larger than 1 MiB") {
		t.Fatalf("ReadFile(endless pipe) = %v, want larger than 1 MiB", err)
	}
}

// A scenario written into a pipe (a named one, or a shell's process substitution) is read whole.
func TestLoadContextPipe(t *testing.T) {
	fifo := mkfifo(t)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = w.WriteString(base)
		w.Close()
	}()
	s, err := LoadContext(context.Background(), fifo)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "t" || string(s.Source()) != base {
		t.Errorf("name %q, source %d bytes; want t and the %d bytes written", s.Name, len(s.Source()), len(base))
	}
}

// A pipe that waits for its writer, or whose writer never writes, gives up when the context ends,
// with the context's error.
func TestReadFileHonoursContext(t *testing.T) {
	t.Run("no writer", func(t *testing.T) {
		fifo := mkfifo(t)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { _, err := ReadFile(ctx, fifo); errc <- err }()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("ReadFile = %v, want context.Canceled", err)
		}
	})
	t.Run("silent writer", func(t *testing.T) {
		fifo := mkfifo(t)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { _, err := LoadContext(ctx, fifo); errc <- err }()
		// Opening for writing returns once the reader has opened the pipe: the read is under way.
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("LoadContext = %v, want context.Canceled", err)
		}
	})
}
