package sut

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"sync"
	"time"

	"github.com/prometheus/procfs"
)

// cpuSamplePeriod is how often an external controller's CPU time is read: finer than the 10 ms
// of the kernel's accounting would add nothing.
const cpuSamplePeriod = 20 * time.Millisecond

// maxLogLine bounds the part of one output line kept for matching.
const maxLogLine = 64 << 10

// procWatch follows one controller process: it copies the process's output to its log file,
// notes when a line first matched the cache-synced pattern, and samples the process's CPU time
// and resident memory.
type procWatch struct {
	out    io.Writer
	synced *regexp.Regexp

	mu       sync.Mutex
	line     []byte
	syncedAt time.Time
	cpu      []CPUPoint
	rss      int64 // bytes, at the last sample
	peakRSS  int64 // bytes, the largest sample since takePeakRSS last ran
}

func newProcWatch(out io.Writer, synced *regexp.Regexp) *procWatch {
	return &procWatch{out: out, synced: synced}
}

// Write is the process's stdout and stderr (exec copies both through one goroutine).
func (w *procWatch) Write(b []byte) (int, error) {
	n, err := w.out.Write(b)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.synced == nil || !w.syncedAt.IsZero() {
		return n, err
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			w.line = append(w.line, b[:min(len(b), maxLogLine-len(w.line))]...)
			break
		}
		w.line = append(w.line, b[:min(i, maxLogLine-len(w.line))]...)
		if w.synced.Match(w.line) {
			w.syncedAt = time.Now()
			w.line = nil
			break
		}
		w.line, b = w.line[:0], b[i+1:]
	}
	return n, err
}

// sample reads pid's CPU time and anonymous resident memory every cpuSamplePeriod until done is closed.
func (w *procWatch) sample(pid int, done <-chan struct{}) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return
	}
	tk := time.NewTicker(cpuSamplePeriod)
	defer tk.Stop()
	for {
		if st, err := p.Stat(); err == nil {
			w.mu.Lock()
			w.cpu = append(w.cpu, CPUPoint{At: time.Now(), Seconds: st.CPUTime()})
			w.mu.Unlock()
		}
		if b, ok := anonResident(p); ok {
			w.noteRSS(b)
		}
		select {
		case <-done:
			return
		case <-tk.C:
		}
	}
}

// now is the latest sample: CPU seconds so far and anonymous resident bytes (zeros before the
// first).
func (w *procWatch) now() (cpuSeconds float64, rssBytes int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.cpu); n > 0 {
		cpuSeconds = w.cpu[n-1].Seconds
	}
	return cpuSeconds, w.rss
}

// noteRSS records a sample of the anonymous resident size.
func (w *procWatch) noteRSS(b int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rss = b
	w.peakRSS = max(w.peakRSS, b)
}

// takePeakRSS returns the largest resident size sampled since its previous call (the latest
// sample when none was taken since) and starts a new interval.
func (w *procWatch) takePeakRSS() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	peak := max(w.peakRSS, w.rss)
	w.peakRSS = 0
	return peak
}

// stats returns the CPU samples so far and when the caches synced (zero: not yet, or no pattern).
func (w *procWatch) stats() ([]CPUPoint, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]CPUPoint(nil), w.cpu...), w.syncedAt
}

// anonResident is p's resident memory less its file-backed pages (statm's resident − shared), in
// bytes: what the process itself holds. The file-backed part is mostly the binary's text, page
// cache whose residency depends on how the file was written and cached rather than on the process:
// two identical builds of one commit showed 55 and 82 MB of it.
func anonResident(p procfs.Proc) (int64, bool) {
	st, err := p.Statm()
	if err != nil || st.Shared > st.Resident {
		return 0, false
	}
	return int64(st.Resident-st.Shared) * int64(os.Getpagesize()), true
}
