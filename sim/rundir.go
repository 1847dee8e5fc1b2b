package sim

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// maxRunDirTries bounds the names tried for runs of one scenario started in the same second.
const maxRunDirTries = 1000

// makeRunDir creates the output folder of a run of scenario name started at started, and owns it:
// each name is created with a single mkdir, which fails when the folder exists, so two runs started
// in the same second (even by two processes) never share one. The first run of a second gets
// <time>, the next ones <time>-2, <time>-3, ...
func makeRunDir(outDir, name string, started time.Time) (string, error) {
	parent := filepath.Join(outDir, name)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	base := filepath.Join(parent, started.UTC().Format("20060102T150405Z"))
	for i := 1; i <= maxRunDirTries; i++ {
		dir := base
		if i > 1 {
			dir = base + "-" + strconv.Itoa(i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: %d runs started in the same second already", base, maxRunDirTries)
}
