package sut

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/procfs"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/scenario"
)

// memoryChildAddr, when set, makes the test binary an external controller that holds
// memoryChildMiB of live heap and serves the default registry's Go metrics on that address.
const (
	memoryChildAddr = "RESTARTSIM_TEST_MEMORY_CHILD_ADDR"
	memoryChildMiB  = 48
)

var memoryChildHeld [][]byte

func runMemoryChild(addr string) {
	for range memoryChildMiB {
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = 1 // resident, not only reserved
		}
		memoryChildHeld = append(memoryChildHeld, b)
	}
	runtime.GC()
	_ = http.ListenAndServe(addr, promhttp.Handler())
	os.Exit(1)
}

// The peak of the resident samples is kept until the next reading, which then starts afresh.
func TestTakePeakRSSKeepsTheLargestSampleSinceTheLastReading(t *testing.T) {
	w := newProcWatch(nil, nil)
	for _, v := range []int64{10, 50, 20} {
		w.noteRSS(v)
	}
	if got := w.takePeakRSS(); got != 50 {
		t.Errorf("peak = %d, want 50", got)
	}
	if got := w.takePeakRSS(); got != 20 {
		t.Errorf("without a new sample = %d, want the latest, 20", got)
	}
	w.noteRSS(5)
	if got := w.takePeakRSS(); got != 5 {
		t.Errorf("after a smaller sample = %d, want 5", got)
	}
}

// An external process's memory reading carries its resident size, its kernel high-water mark and,
// from its own metrics endpoint, its Go heap: all at least the heap it holds.
func TestExternalMemoryReadsProcessAndHeap(t *testing.T) {
	srv, err := fakeaws.New(fakeaws.Options{Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	x := &scenario.External{Command: []string{self, "-test.run=^$"}, MetricsPath: scenario.DefaultMetricsPath,
		Env: map[string]string{memoryChildAddr: "127.0.0.1:{{.MetricsPort}}"}}
	ctrls, err := NewExternal(x, &env.Env{ControllerKubeconfig: filepath.Join(dir, "kubeconfig")}, backend.Local{Server: srv},
		backend.Creds{Region: "us-west-2", AccessKey: "AKID", SecretKey: "secret"}, &scenario.Scenario{Controller: scenario.Controller{Replicas: 1}},
		"lease-ns", dir, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := ctrls.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer ctrls.Stop()
	const held = memoryChildMiB << 20
	var got MemoryPoint
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 60*time.Second, true, func(context.Context) (bool, error) {
		for _, p := range ctrls.ScrapeMemory() {
			if p.HeapInuseBytes != nil && *p.HeapInuseBytes >= held {
				got = p
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no reading with the child's %d MiB of heap: %v", memoryChildMiB, err)
	}
	if got.Instance != 0 || got.RSSBytes < held || got.HWMBytes < got.RSSBytes || got.HeapAllocBytes == nil || *got.HeapAllocBytes < held {
		t.Errorf("reading = instance %d, RSS %d, HWM %d, heap alloc %v; want instance 0, all ≥ %d and HWM ≥ RSS",
			got.Instance, got.RSSBytes, got.HWMBytes, got.HeapAllocBytes, held)
	}
}

// In-process replicas share the harness's process: one reading, of that process.
func TestInProcessMemoryIsTheHarnessProcess(t *testing.T) {
	pts := (&inProcess{}).ScrapeMemory()
	if len(pts) != 1 {
		t.Fatalf("%d readings, want 1", len(pts))
	}
	p := pts[0]
	if p.Instance != HarnessProcess || p.RSSBytes <= 0 || p.HWMBytes < p.RSSBytes || p.HeapInuseBytes == nil ||
		p.HeapAllocBytes == nil || *p.HeapInuseBytes < *p.HeapAllocBytes || *p.HeapAllocBytes <= 0 {
		t.Errorf("reading = %+v (heap in use %v, alloc %v)", p, p.HeapInuseBytes, p.HeapAllocBytes)
	}
}

// A mapped file's pages are resident but not the process's own: reading 32 MiB of one through a
// mapping raises the resident size by that much and the anonymous resident size by far less.
func TestAnonResidentLeavesOutFileBackedPages(t *testing.T) {
	const size = 32 << 20
	f, err := os.Create(filepath.Join(t.TempDir(), "mapped"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Munmap(data) }()
	self, err := procfs.Self()
	if err != nil {
		t.Fatal(err)
	}
	read := func() (anon, total int64) {
		a, ok := anonResident(self)
		st, err := self.Stat()
		if !ok || err != nil {
			t.Fatalf("reading /proc/self: %v", err)
		}
		return a, int64(st.ResidentMemory())
	}
	anon0, total0 := read()
	sum := 0
	for i := 0; i < size; i += os.Getpagesize() {
		sum += int(data[i])
	}
	anon1, total1 := read()
	if sum != 0 || total1-total0 < size*3/4 {
		t.Fatalf("resident size rose by %d bytes reading a %d-byte mapping (sum %d): the pages were not read in", total1-total0, size, sum)
	}
	if anon1-anon0 > size/4 {
		t.Errorf("anonymous resident size rose by %d bytes (resident by %d): file-backed pages counted", anon1-anon0, total1-total0)
	}
}
