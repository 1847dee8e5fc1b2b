//go:build unix

package regularfile

import (
	"os"
	"syscall"
)

// openNonBlocking opens for reading with O_NONBLOCK, which makes opening a named pipe return at once
// instead of waiting for a writer; reads of a regular file ignore the flag.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
