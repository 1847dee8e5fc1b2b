package sut

import (
	"runtime/metrics"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/procfs"

	"github.com/restartsim/restartsim/results"
)

// MemoryScrapeInterval is the wall time between two memory points of an instance. An external
// process's resident size is sampled every cpuSamplePeriod in between and a point carries the
// largest sample since the previous point, so a short peak is not missed; the heap comes from the
// instance's metrics, read at the point.
const MemoryScrapeInterval = 100 * time.Millisecond

// HarnessProcess is MemoryPoint.Instance for the harness's own process, which in-process replicas
// share with fakeaws and the harness's watches.
const HarnessProcess = results.HarnessInstance

// MemoryPoint is one reading of one instance's memory.
type MemoryPoint struct {
	// Instance is the replica, or HarnessProcess.
	Instance int
	At       time.Time
	// RSSBytes is the largest anonymous resident size (see anonResident) sampled since the
	// instance's previous point.
	RSSBytes int64
	// HWMBytes is the kernel's high-water mark of the resident size (VmHWM) so far, file-backed
	// pages included (0: unknown).
	HWMBytes int64
	// HeapInuseBytes and HeapAllocBytes are the Go heap's spans in use and its live and not yet
	// swept objects (go_memstats_heap_inuse_bytes, go_memstats_heap_alloc_bytes); nil when the
	// instance does not expose them.
	HeapInuseBytes, HeapAllocBytes *float64
}

// MemoryScraper is a controller under test whose instances' memory can be read.
type MemoryScraper interface {
	// ScrapeMemory reads every running instance's memory once.
	ScrapeMemory() []MemoryPoint
}

// StartMemoryScrape reads c's memory every MemoryScrapeInterval.
func StartMemoryScrape(c MemoryScraper) *Scrape[MemoryPoint] {
	return StartScrape(MemoryScrapeInterval, c.ScrapeMemory)
}

// memoryFamilies are the metric families a memory scrape reads: client_golang's Go collector
// names, which controller-runtime's registry and most controllers expose.
var memoryFamilies = []string{"go_memstats_heap_inuse_bytes", "go_memstats_heap_alloc_bytes"}

// heapOf reads the heap gauges of a scrape (nil where absent).
func heapOf(mfs map[string]*dto.MetricFamily) (inuse, alloc *float64) {
	one := func(name string) *float64 {
		mf := mfs[name]
		if mf == nil || len(mf.GetMetric()) == 0 {
			return nil
		}
		v := value(mf.GetMetric()[0])
		return &v
	}
	return one(memoryFamilies[0]), one(memoryFamilies[1])
}

// highWaterMark is pid's VmHWM in bytes (0 when it cannot be read).
func highWaterMark(p procfs.Proc) int64 {
	st, err := p.NewStatus()
	if err != nil {
		return 0
	}
	return int64(st.VmHWM)
}

// ScrapeMemory implements MemoryScraper: every running process's resident size, high-water mark
// and, from its metrics endpoint, heap.
func (x *external) ScrapeMemory() []MemoryPoint {
	var out []MemoryPoint
	for _, p := range x.running() {
		at := time.Now()
		pt := MemoryPoint{Instance: p.id, At: at, RSSBytes: p.watch.takePeakRSS()}
		if pp, err := procfs.NewProc(p.cmd.Process.Pid); err == nil {
			pt.HWMBytes = highWaterMark(pp)
		}
		if mfs, err := x.scrape(p, memoryFamilies); err == nil {
			pt.HeapInuseBytes, pt.HeapAllocBytes = heapOf(mfs)
		}
		if pt.RSSBytes == 0 && pt.HeapInuseBytes == nil {
			continue // not sampled yet
		}
		out = append(out, pt)
	}
	return out
}

// harnessHeap are the runtime/metrics equivalents of the heap gauges: HeapAlloc is the heap's
// objects; HeapInuse adds the free space in spans that hold objects.
var harnessHeap = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/unused:bytes"},
}

// ScrapeMemory implements MemoryScraper: the replicas share the harness's process, whose memory
// is all that can be read; the replicas' part of it cannot be told apart.
func (p *inProcess) ScrapeMemory() []MemoryPoint { return harnessMemory() }

// harnessMemory reads the harness's own process once.
func harnessMemory() []MemoryPoint {
	self, err := procfs.Self()
	if err != nil {
		return nil
	}
	pt := MemoryPoint{Instance: HarnessProcess, At: time.Now(), HWMBytes: highWaterMark(self)}
	if b, ok := anonResident(self); ok {
		pt.RSSBytes = b
	}
	samples := append([]metrics.Sample(nil), harnessHeap...)
	metrics.Read(samples)
	if samples[0].Value.Kind() == metrics.KindUint64 && samples[1].Value.Kind() == metrics.KindUint64 {
		alloc := float64(samples[0].Value.Uint64())
		inuse := alloc + float64(samples[1].Value.Uint64())
		pt.HeapInuseBytes, pt.HeapAllocBytes = &inuse, &alloc
	}
	return []MemoryPoint{pt}
}
