package env

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A filesystem with less than MinFreeBytes free is refused before etcd starts, saying so, rather
// than after envtest's minute of waiting for etcd.
func TestCheckFreeSpace(t *testing.T) {
	dir := t.TempDir()
	free := map[string]uint64{}
	fake := func(d string) (uint64, error) {
		if v, ok := free[d]; ok {
			return v, nil
		}
		return 0, errors.New("not a filesystem")
	}
	free[dir] = MinFreeBytes
	if err := checkFreeSpace(fake, dir, filepath.Join(dir, "strategy", "etcd")); err != nil {
		t.Errorf("exactly the minimum: %v", err)
	}
	free[dir] = MinFreeBytes - 1
	err := checkFreeSpace(fake, filepath.Join(dir, "strategy", "etcd"))
	if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, ErrEnvironment) || !strings.Contains(err.Error(), "no space left on device: "+dir+" has 255 MiB free") {
		t.Errorf("one byte short: %v, want ENOSPC naming %s (the nearest existing directory)", err, dir)
	}
	free[dir] = 300 << 10
	if err := checkFreeSpace(fake, dir); err == nil || !strings.Contains(err.Error(), "has 300 KiB free") {
		t.Errorf("under a MiB: %v, want the KiB free", err)
	}
	if err := checkFreeSpace(fake, "/no/such/filesystem"); err != nil {
		t.Errorf("unreadable free space: %v, want it let through", err)
	}
	if free, err := statfsFree(dir); err != nil || free == 0 {
		t.Errorf("statfs of %s: %d bytes free, %v", dir, free, err)
	}
}
