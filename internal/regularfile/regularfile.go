// Package regularfile opens the files a user names (CRDs, call logs, results) only when they are regular
// files. Opening a named pipe for reading blocks until a writer comes, and a device may never end, so either
// would hang a command that a signal then has to end; both are refused before anything is read.
package regularfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Open opens path for reading if it is a regular file (symbolic links followed). The type is checked by
// name first (a socket cannot even be opened), then again on the opened file, whose open does not block on
// a named pipe, so a file swapped in between cannot slip through.
func Open(path string) (*os.File, error) {
	if err := checkRegular(path, os.Stat); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, func(string) (fs.FileInfo, error) { return f.Stat() }); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func checkRegular(path string, stat func(string) (fs.FileInfo, error)) error {
	st, err := stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file", path, Describe(st.Mode()))
	}
	return nil
}

// ReadFile reads the regular file at path, refusing one larger than limit bytes without reading more than
// limit+1 of it.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes, the most it may hold", path, limit)
	}
	return data, nil
}

// Describe names a file's type as an error message does: "a directory", "a named pipe", "a device".
func Describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "of type " + m.Type().String()
}
