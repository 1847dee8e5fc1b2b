package regularfile

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every non-regular file is refused at once, a named pipe without a writer included (opening it for
// reading used to block until one came).
func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for path, want := range map[string]string{fifo: "a named pipe", sock: "a socket", dir: "a directory", "/dev/zero": "a device"} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(path, 1<<20); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), path+" is "+want+", not a regular file") {
				t.Errorf("ReadFile(%s) = %v, want %q", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) still blocked after 10 s", path)
		}
	}
}

func TestReadsARegularFileWithinItsLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(path, 5); err != nil || string(data) != "12345" {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
	if _, err := ReadFile(path, 4); err == nil || !strings.Contains(err.Error(), "larger than 4 bytes") {
		t.Errorf("ReadFile over the limit = %v", err)
	}
	link := filepath.Join(filepath.Dir(path), "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(link, 5); err != nil || string(data) != "12345" {
		t.Errorf("ReadFile through a link = %q, %v", data, err)
	}
}
