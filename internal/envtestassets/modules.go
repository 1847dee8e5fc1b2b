package envtestassets

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// EtcdVersion is the etcd release the etcd module pins (go.etcd.io/etcd/server/v3).
const EtcdVersion = "3.6.16"

// modules holds the nested Go modules that build the binaries. They live here, with a .txt suffix,
// because go:embed (and a module zip, so `go install`) skips any directory holding a go.mod, and
// a main.go would be compiled as part of this module. modules/README.md says how to bump them.
//
//go:embed modules/kubernetes/*.txt modules/etcd/*.txt
var modules embed.FS

// moduleFiles lists a module's files by their real names (go.mod, go.sum, main.go), sorted.
func moduleFiles(module string) (map[string][]byte, error) {
	dir := path.Join("modules", module)
	entries, err := fs.ReadDir(modules, dir)
	if err != nil {
		return nil, fmt.Errorf("no embedded module %q: %w", module, err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		data, err := modules.ReadFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files[strings.TrimSuffix(e.Name(), ".txt")] = data
	}
	return files, nil
}

// moduleDigest identifies a module's files; it changes when go.mod, go.sum or main.go do, which
// makes binaries built from the old files out of date.
func moduleDigest(module string) (string, error) {
	files, err := moduleFiles(module)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s %d\n", name, len(files[name]))
		h.Write(files[name])
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// writeModule writes a module's files, by their real names, into dir.
func writeModule(module, dir string) error {
	files, err := moduleFiles(module)
	if err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
