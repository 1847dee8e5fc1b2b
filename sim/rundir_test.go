package sim

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var sameSecond = time.Date(2026, 12, 2, 8, 49, 31, 0, time.UTC)

// Runs started in the same second each get a folder of their own, the first one the plain name;
// a folder that exists already (another process's run) is never reused.
func TestMakeRunDirSameSecond(t *testing.T) {
	out := t.TempDir()
	taken := filepath.Join(out, "quickstart", "20261202T084931Z-2")
	if err := os.MkdirAll(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		dir, err := makeRunDir(out, "quickstart", sameSecond.Add(300*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(dir))
	}
	want := []string{"20261202T084931Z", "20261202T084931Z-3", "20261202T084931Z-4"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("folders %v, want %v", got, want)
		}
	}
}

// Concurrent runs of one scenario in one second (as two processes with the same --out) never share
// a folder.
func TestMakeRunDirConcurrent(t *testing.T) {
	out := t.TempDir()
	const runs = 16
	dirs := make([]string, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() { dirs[i], errs[i] = makeRunDir(out, "quickstart", sameSecond) })
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, d := range dirs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if seen[d] {
			t.Fatalf("two runs got folder %s", d)
		}
		seen[d] = true
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			t.Fatalf("folder %s: %v", d, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(out, "quickstart")); len(entries) != runs {
		t.Fatalf("%d folders for %d runs", len(entries), runs)
	}
}
