package machine

import (
	"cmp"
	"math"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/restartsim/restartsim/results"
)

// Options configure a Watch.
type Options struct {
	// ProcRoot is the proc file system read. Default: /proc.
	ProcRoot string
	// ProbeInterval is how long the probe goroutine sleeps between wake-ups. Default: 10ms, short
	// enough to see delays of a few milliseconds, long enough to cost nothing.
	ProbeInterval time.Duration
	// LoadInterval is how often the load average is read for its maximum. Default: 1s (the kernel
	// updates it every 5 s).
	LoadInterval time.Duration
	// CPUs is the number of logical CPUs. Default: runtime.NumCPU().
	CPUs int
	// Run is the process whose tree is the run (the harness, its API server, etcd and
	// controllers): the CPU time of every other process is the machine's other load. Default: this
	// process.
	Run int
	// RunDir, when set, is the directory the run owns: processes whose command line names it are
	// the run's own (Machine.RunCPUSeconds), told apart from other runs side by side in one
	// harness.
	RunDir string
	// Parallel is how many runs ran side by side (Machine.Parallel); 0 or 1: this one alone.
	Parallel int
}

func (o Options) setDefaults() Options {
	if o.ProcRoot == "" {
		o.ProcRoot = "/proc"
	}
	if o.ProbeInterval <= 0 {
		o.ProbeInterval = 10 * time.Millisecond
	}
	if o.LoadInterval <= 0 {
		o.LoadInterval = time.Second
	}
	if o.CPUs <= 0 {
		o.CPUs = runtime.NumCPU()
	}
	if o.Run <= 0 {
		o.Run = os.Getpid()
	}
	return o
}

// Watch records the machine's state from Start until Stop.
//
// The scheduling-delay probe is a goroutine that sleeps ProbeInterval and records how late it
// woke. It measures what the run's timings suffer: the wait of a runnable harness goroutine for
// an OS thread and a CPU, Go's scheduler and garbage collector included, which /proc's per-thread
// run-queue wait (schedstat) would split across threads and miss the Go scheduler's part of.
type Watch struct {
	o     Options
	p     proc
	stop  chan struct{}
	done  sync.WaitGroup
	start cpuTimes
	// startTree is the run's CPU seconds at the start; treeErr says why they could not be read.
	startTree float64
	treeErr   error
	startRun  map[int]int // the run's own processes' CPU ticks at the start (RunDir)
	started   time.Time
	err       error // the first reading that failed; its figures are left zero

	mu       sync.Mutex
	load1    []float64
	lateness []time.Duration
}

// Start begins watching. A proc file system that cannot be read is not fatal: the figures it
// would give stay zero and Stop's record says so in Error.
func Start(opts Options) *Watch {
	o := opts.setDefaults()
	w := &Watch{o: o, stop: make(chan struct{}), started: time.Now()}
	var err error
	if w.p, err = newProc(o.ProcRoot); err != nil {
		w.err = err
	} else {
		w.start, w.err = w.p.cpu()
		w.startTree, w.treeErr = w.p.treeCPU(o.Run)
		if o.RunDir != "" {
			w.startRun, _ = w.p.runTicks(o.RunDir)
		}
		w.sampleLoad()
	}
	w.done.Add(2)
	go w.probe()
	go w.loads()
	return w
}

func (w *Watch) sampleLoad() {
	if w.err != nil {
		return
	}
	l, err := w.p.load1()
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.err = err
		return
	}
	w.load1 = append(w.load1, l)
}

func (w *Watch) probe() {
	defer w.done.Done()
	t := time.NewTimer(w.o.ProbeInterval)
	defer t.Stop()
	for {
		asked := time.Now()
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		late := lateness(w.o.ProbeInterval, time.Since(asked))
		w.mu.Lock()
		w.lateness = append(w.lateness, late)
		w.mu.Unlock()
		t.Reset(w.o.ProbeInterval)
	}
}

func (w *Watch) loads() {
	defer w.done.Done()
	tk := time.NewTicker(w.o.LoadInterval)
	defer tk.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tk.C:
			w.sampleLoad()
		}
	}
}

// Stop ends the watch and returns its record: the figures, which sim/measure judges.
func (w *Watch) Stop() *results.Machine {
	close(w.stop)
	w.done.Wait()
	w.sampleLoad()
	m := &results.Machine{CPUs: w.o.CPUs, ProbeIntervalMillis: float64(w.o.ProbeInterval) / 1e6,
		WallSeconds: math.Round(time.Since(w.started).Seconds()*1000) / 1000, Parallel: max(1, w.o.Parallel)}
	if w.err == nil {
		if end, err := w.p.cpu(); err == nil {
			m.StealFraction, m.IOWaitFraction = fractions(w.start, end)
			m.StealFraction, m.IOWaitFraction = round4(m.StealFraction), round4(m.IOWaitFraction)
			m.BusyFraction = round4(busyShare(w.start, end))
			if w.startRun != nil {
				if endRun, err := w.p.runTicks(w.o.RunDir); err == nil {
					m.RunCPUSeconds = runCPUSeconds(w.startRun, endRun)
				}
			}
			if w.treeErr == nil {
				var endTree float64
				if endTree, w.treeErr = w.p.treeCPU(w.o.Run); w.treeErr == nil {
					m.OtherCPUFraction = round4(otherShare(w.start, end, w.startTree, endTree))
				}
			}
		} else {
			w.err = err
		}
	}
	w.mu.Lock()
	if n := len(w.load1); n > 0 {
		m.Load1Start, m.Load1End = w.load1[0], w.load1[n-1]
		for _, l := range w.load1 {
			m.Load1Max = max(m.Load1Max, l)
		}
	}
	m.SchedDelay = delays(w.lateness)
	w.mu.Unlock()
	if err := cmp.Or(w.err, w.treeErr); err != nil {
		m.Error = err.Error()
	}
	return m
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
