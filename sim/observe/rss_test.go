package observe

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTreeRSSCountsThisProcess(t *testing.T) {
	total, split, own := treeRSS(os.Getpid())
	if own <= 0 || total < own {
		t.Fatalf("treeRSS: total %d, own %d; want 0 < own <= total", total, own)
	}
	var sum int64
	for _, v := range split {
		sum += v
	}
	if sum != total {
		t.Errorf("split sums to %d, total is %d", sum, total)
	}
}

func TestHeapProfileFollowsNewHighs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "prof", "heap-peak.pprof")
	w := &RSSWatch{heapFile: file}
	written := func() bool {
		_, err := os.Stat(file)
		return err == nil
	}
	w.keepHeapProfile(1000)
	if !written() || w.heapWritten != 1000 {
		t.Fatalf("first sample: written %v, heapWritten %d", written(), w.heapWritten)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	w.keepHeapProfile(1099) // under 10 % more: keep the old one
	if written() {
		t.Fatal("rewritten below the 10 % step")
	}
	w.keepHeapProfile(1100)
	if !written() || w.heapWritten != 1100 {
		t.Fatalf("at 10 %% more: written %v, heapWritten %d", written(), w.heapWritten)
	}
	if data, err := os.ReadFile(file); err != nil || len(data) == 0 {
		t.Fatalf("profile: %d bytes, %v", len(data), err)
	}
	(&RSSWatch{}).keepHeapProfile(1 << 40) // no file configured: nothing to do
}
