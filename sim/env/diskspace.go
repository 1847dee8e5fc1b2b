package env

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MinFreeBytes is the free space envtest needs on the filesystems of its work and etcd
// directories: etcd allocates its first 64 MiB write-ahead log file at start, then the audit log
// and the fleet's objects grow. With less, etcd fails to start and envtest only reports "timeout
// waiting for process etcd to start" a minute later.
const MinFreeBytes = 256 << 20

// statfsFree returns the bytes an unprivileged process may still write on the filesystem of dir.
func statfsFree(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil //nolint:unconvert // the Statfs_t field types differ between platforms
}

// checkFreeSpace fails, wrapping ErrEnvironment and syscall.ENOSPC, when the filesystem of any of
// dirs (or of its nearest existing parent) has less than MinFreeBytes free by freeBytes
// (statfsFree). A filesystem whose free space cannot be read is let through: the start will tell.
func checkFreeSpace(freeBytes func(dir string) (uint64, error), dirs ...string) error {
	for _, dir := range dirs {
		at := existingParent(dir)
		free, err := freeBytes(at)
		if err != nil || free >= MinFreeBytes {
			continue
		}
		have := fmt.Sprintf("%d MiB", free>>20)
		if free < 1<<20 {
			have = fmt.Sprintf("%d KiB", free>>10)
		}
		return fmt.Errorf("%w: %w: %s has %s free; envtest's etcd needs at least %d MiB there", ErrEnvironment,
			syscall.ENOSPC, at, have, MinFreeBytes>>20)
	}
	return nil
}

// existingParent is dir, or its nearest parent that exists.
func existingParent(dir string) string {
	dir = filepath.Clean(dir)
	for {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}
