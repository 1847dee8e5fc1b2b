//go:build !unix

package regularfile

import "os"

// openNonBlocking opens for reading; Open checked the type by name first.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
