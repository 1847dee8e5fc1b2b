// Package outfiletest provides filesystems for outfile: one whose writes fail as on a full disk,
// one that keeps nothing.
package outfiletest

import (
	"io"
	"syscall"

	"github.com/restartsim/restartsim/internal/outfile"
)

// FullDisk is the real disk, except that writing a file whose name Full matches fails with ENOSPC
// as on a full disk: at its first write, or only when it is closed with OnClose (a write-back
// error). Full sees the name the file is created under.
type FullDisk struct {
	outfile.Disk
	Full    func(name string) bool
	OnClose bool
}

// Create implements outfile.FS.
func (d FullDisk) Create(name string) (io.WriteCloser, error) {
	f, err := d.Disk.Create(name)
	if err != nil || d.Full == nil || !d.Full(name) {
		return f, err
	}
	return &fullFile{WriteCloser: f, onClose: d.OnClose}, nil
}

type fullFile struct {
	io.WriteCloser
	onClose bool
}

func (f *fullFile) Write(p []byte) (int, error) {
	if f.onClose {
		return len(p), nil // accepted, never stored: the failure shows at close
	}
	return 0, &writeError{}
}

func (f *fullFile) Close() error {
	err := f.WriteCloser.Close()
	if f.onClose && err == nil {
		return &writeError{}
	}
	return err
}

// writeError is ENOSPC as the os package reports it.
type writeError struct{}

func (*writeError) Error() string { return "write: " + syscall.ENOSPC.Error() }
func (*writeError) Unwrap() error { return syscall.ENOSPC }

// Discard is a filesystem that keeps nothing: every file is written to io.Discard, for tests and
// fuzz targets that need only the writing.
type Discard struct{}

// Create implements outfile.FS.
func (Discard) Create(string) (io.WriteCloser, error) { return nopCloser{io.Discard}, nil }

// Rename implements outfile.FS.
func (Discard) Rename(string, string) error { return nil }

// Remove implements outfile.FS.
func (Discard) Remove(string) error { return nil }

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
