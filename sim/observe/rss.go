package observe

import (
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RSSWatch samples the resident memory of this process and its children (apiserver, etcd,
// external controllers) from /proc, keeping the peak and how it split between the processes.
// Elsewhere it reports 0.
type RSSWatch struct {
	stopCh chan struct{}
	wg     sync.WaitGroup
	peak   int64
	split  map[string]int64 // at the peak, by process name

	heapFile    string // optional: heap profile at the harness's own peak
	heapWritten int64  // the harness RSS when heapFile was last written
}

// StartRSSWatch samples every second; with heapFile set it also keeps a heap profile of the
// harness's own highest resident memory.
func StartRSSWatch(heapFile string) *RSSWatch {
	w := &RSSWatch{stopCh: make(chan struct{}), heapFile: heapFile}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		for {
			total, split, own := treeRSS(os.Getpid())
			if total > w.peak {
				w.peak, w.split = total, split
			}
			w.keepHeapProfile(own)
			select {
			case <-w.stopCh:
				return
			case <-tk.C:
			}
		}
	}()
	return w
}

// keepHeapProfile rewrites the heap profile once the harness's RSS is 10 % above the RSS of the
// last one written; the profile shows the live heap as of the latest GC.
func (w *RSSWatch) keepHeapProfile(own int64) {
	if w.heapFile == "" || own*10 < w.heapWritten*11 {
		return
	}
	if err := os.MkdirAll(filepath.Dir(w.heapFile), 0o755); err != nil {
		return
	}
	tmp := w.heapFile + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return
	}
	err = pprof.WriteHeapProfile(f)
	if cerr := f.Close(); err == nil && cerr == nil && os.Rename(tmp, w.heapFile) == nil {
		w.heapWritten = own
		return
	}
	_ = os.Remove(tmp)
}

// Stop ends the sampling and returns the peak and its split.
func (w *RSSWatch) Stop() (int64, map[string]int64) {
	close(w.stopCh)
	w.wg.Wait()
	return w.peak, w.split
}

// treeRSS sums VmRSS over pid and its descendants, also by process name (the harness is named
// after its binary, e.g. restartsim or a test binary); own is root's alone.
func treeRSS(root int) (total int64, split map[string]int64, own int64) {
	children := map[int][]int{}
	rss := map[int]int64{}
	names := map[int]string{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/status")
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		var pid, ppid int
		var kb int64
		var name string
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			switch f[0] {
			case "Name:":
				name = f[1]
			case "Pid:":
				pid, _ = strconv.Atoi(f[1])
			case "PPid:":
				ppid, _ = strconv.Atoi(f[1])
			case "VmRSS:":
				kb, _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
		children[ppid] = append(children[ppid], pid)
		rss[pid] = kb * 1024
		names[pid] = name
	}
	split = map[string]int64{}
	stack := []int{root}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		total += rss[p]
		if rss[p] > 0 {
			split[names[p]] += rss[p]
		}
		stack = append(stack, children[p]...)
	}
	return total, split, rss[root]
}
