package machine

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/restartsim/restartsim/results"
)

func TestProcReadsLoadAndCPUTimes(t *testing.T) {
	start, err := newProc("testdata/start")
	if err != nil {
		t.Fatal(err)
	}
	end, err := newProc("testdata/end")
	if err != nil {
		t.Fatal(err)
	}
	if l, err := end.load1(); err != nil || l != 3.5 {
		t.Fatalf("load1 = %v, %v; want 3.5", l, err)
	}
	a, err := start.cpu()
	if err != nil {
		t.Fatal(err)
	}
	b, err := end.cpu()
	if err != nil {
		t.Fatal(err)
	}
	// end/stat adds 600 user, 200 system, 100 idle, 50 iowait, 50 steal and 30 guest ticks (guest
	// is part of user): 1,000 ticks in all.
	steal, iowait := fractions(a, b)
	if !near(steal, 0.05) || !near(iowait, 0.05) {
		t.Fatalf("steal, iowait = %v, %v; want 0.05, 0.05", steal, iowait)
	}
	if s, w := fractions(b, b); s != 0 || w != 0 {
		t.Fatalf("no time passed: %v, %v; want zeros", s, w)
	}
}

func TestOtherProcessesShare(t *testing.T) {
	start, _ := newProc("testdata/start")
	end, _ := newProc("testdata/end")
	// The run is process 100 with its child 101 (1.2 + 0.6 s at the start); at the end 101 has
	// exited and was waited for, so its 1.0 s are in 100's cutime and cstime: 4.0 s in all.
	// Process 200 is not the run's.
	from, err := start.treeCPU(100)
	if err != nil || !near(from, 1.8) {
		t.Fatalf("run's CPU at the start = %v, %v; want 1.8 s", from, err)
	}
	to, err := end.treeCPU(100)
	if err != nil || !near(to, 4.0) {
		t.Fatalf("run's CPU at the end = %v, %v; want 4.0 s", to, err)
	}
	if _, err := end.treeCPU(101); err == nil {
		t.Error("an exited run: no error")
	}
	a, _ := start.cpu()
	b, _ := end.cpu()
	// 10 s of CPU time passed, 8 s of it busy (user and system), 2.2 s of that the run's.
	if got := otherShare(a, b, from, to); !near(got, 0.58) {
		t.Errorf("other processes' share = %v, want 0.58", got)
	}
	if got := otherShare(a, a, from, from); got != 0 {
		t.Errorf("no time passed: %v, want 0", got)
	}
}

func TestDelaysSummary(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ { // 1..100 ms, shuffled order does not matter
		d = append(d, time.Duration(101-i)*time.Millisecond)
	}
	got := delays(d)
	// The median of 1..100 ms is 50.5 ms (the mean of the middle two, as every median of the harness);
	// p99 and the maximum are nearest-rank values of the sample.
	want := results.DelayQuantiles{Count: 100, P50: 50.5, P99: 99, Max: 100}
	if got != want {
		t.Fatalf("delays = %+v, want %+v", got, want)
	}
	if got := delays(nil); got != (results.DelayQuantiles{}) {
		t.Fatalf("no samples: %+v", got)
	}
	if got := delays([]time.Duration{1500 * time.Microsecond}); got.P50 != 1.5 || got.Max != 1.5 {
		t.Fatalf("1.5 ms: %+v", got)
	}
	if l := lateness(10*time.Millisecond, 9*time.Millisecond); l != 0 {
		t.Fatalf("early wake-up counted as %v late", l)
	}
}

// The watch's own run: a short one on the test's proc copy records both readings and a probe
// that woke up at least once.
func TestWatchRecords(t *testing.T) {
	w := Start(Options{ProcRoot: "testdata/start", ProbeInterval: time.Millisecond, CPUs: 2, Run: 100})
	// The positive sign: the probe has woken three times.
	_ = wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.lateness) >= 3, nil
	})
	m := w.Stop()
	if m.Error != "" || m.Load1Start != 0.42 || m.Load1End != 0.42 || m.SchedDelay.Count < 3 || m.ProbeIntervalMillis != 1 {
		t.Fatalf("machine = %+v", m)
	}
	bad := Start(Options{ProcRoot: t.TempDir()}).Stop()
	if bad.Error == "" || bad.Load1Max != 0 {
		t.Fatalf("unreadable proc: %+v, want an error and zero load", bad)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
