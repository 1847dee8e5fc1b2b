package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// FS creates, renames and removes files: Disk, or in tests one whose writes fail.
type FS interface {
	// Create opens name for writing, truncating it.
	Create(name string) (io.WriteCloser, error)
	Rename(from, to string) error
	Remove(name string) error
}

// Disk is the real filesystem.
type Disk struct{}

// Create implements FS.
func (Disk) Create(name string) (io.WriteCloser, error) { return os.Create(name) }

// Rename implements FS.
func (Disk) Rename(from, to string) error { return os.Rename(from, to) }

// Remove implements FS.
func (Disk) Remove(name string) error { return os.Remove(name) }

// Error is a failed write of an output file (or of its directory): the fault of the disk or the
// output path, not of the input.
type Error struct {
	Name string
	Err  error
}

func (e *Error) Error() string { return "writing " + e.Name + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// IsError reports whether err is or wraps an *Error.
func IsError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// MkdirAll creates dir and its parents as os.MkdirAll does; its error is an *Error.
func MkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &Error{Name: dir, Err: cause(err)}
	}
	return nil
}

// partialSuffix names the temporary file a write goes to before it replaces its target.
const partialSuffix = ".partial"

// Write writes name with write, through a temporary file beside it that replaces name only once
// every write and the close succeeded: a failed write (a full disk) leaves neither a partial nor
// an empty file, and an earlier file of that name as it was. Its error is an *Error that names the
// file and wraps the cause (errors.Is(err, syscall.ENOSPC) on a full disk).
func Write(fsys FS, name string, write func(io.Writer) error) error {
	tmp := name + partialSuffix
	f, err := fsys.Create(tmp)
	if err != nil {
		return &Error{Name: name, Err: cause(err)}
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr // a full disk may show only when the data is flushed on close
	}
	if err == nil {
		err = fsys.Rename(tmp, name)
	}
	if err != nil {
		_ = fsys.Remove(tmp)
		return &Error{Name: name, Err: cause(err)}
	}
	return nil
}

// WriteBytes writes data to name as Write does.
func WriteBytes(fsys FS, name string, data []byte) error {
	return Write(fsys, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// cause drops the *fs.PathError or *os.LinkError around an error, whose paths are the temporary
// file's.
func cause(err error) error {
	switch e := err.(type) { //nolint:errorlint // only the outermost wrapper names the temporary file
	case *fs.PathError:
		return e.Err
	case *os.LinkError:
		return e.Err
	}
	return err
}
