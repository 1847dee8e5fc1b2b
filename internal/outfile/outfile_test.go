package outfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/internal/outfile/outfiletest"
)

func TestWriteReplacesWhole(t *testing.T) {
	name := filepath.Join(t.TempDir(), "results.json")
	if err := outfile.WriteBytes(outfile.Disk{}, name, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := outfile.WriteBytes(outfile.Disk{}, name, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(name); string(got) != "new" {
		t.Errorf("content %q, want %q", got, "new")
	}
	assertOnly(t, filepath.Dir(name), "results.json")
}

// A full disk, at a write or only at the close, leaves the earlier file as it was and no
// temporary file, and says so naming the file.
func TestWriteOnFullDisk(t *testing.T) {
	for _, onClose := range []bool{false, true} {
		dir := t.TempDir()
		name := filepath.Join(dir, "report.html")
		if err := os.WriteFile(name, []byte("earlier"), 0o644); err != nil {
			t.Fatal(err)
		}
		full := outfiletest.FullDisk{Full: func(string) bool { return true }, OnClose: onClose}
		err := outfile.WriteBytes(full, name, []byte("<html>"))
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "writing "+name+": ") || strings.Contains(err.Error(), ".partial") {
			t.Errorf("onClose %v: error %v, want ENOSPC naming %s (not its temporary file)", onClose, err, name)
		}
		if got, _ := os.ReadFile(name); string(got) != "earlier" {
			t.Errorf("onClose %v: content %q, want the earlier file", onClose, got)
		}
		assertOnly(t, dir, "report.html")
	}
}

func TestWriteReturnsTheWritersError(t *testing.T) {
	dir := t.TempDir()
	want := errors.New("encoding failed")
	err := outfile.Write(outfile.Disk{}, filepath.Join(dir, "a.csv"), func(io.Writer) error { return want })
	if !errors.Is(err, want) {
		t.Errorf("error %v, want %v", err, want)
	}
	assertOnly(t, dir)
}

func TestWriteIntoMissingDirectory(t *testing.T) {
	name := filepath.Join(t.TempDir(), "missing", "a.png")
	if err := outfile.WriteBytes(outfile.Disk{}, name, []byte{1}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v, want ErrNotExist", err)
	}
}

// assertOnly fails unless dir holds exactly the named files.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}
