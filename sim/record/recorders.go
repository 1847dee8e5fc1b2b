package record

import (
	"time"

	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/machine"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/sut"
)

// queueDepth samples the controller's queue depths once per scenario second.
type queueDepth struct {
	src     Sources
	sampler *observe.Sampler
	samples []measure.Sample
}

func newQueueDepth(src Sources) Recorder { return &queueDepth{src: src} }

func (q *queueDepth) Start(t0 time.Time) {
	q.sampler = observe.StartSampler(q.src.Controllers, q.src.Clock, t0)
}

func (q *queueDepth) Stop() { q.samples = q.sampler.Stop() }

func (q *queueDepth) Collect(in *measure.Input, _ Conversion) { in.Samples = q.samples }

// scrape records a sut.Scrape of the controller instances: begun by start, its points added to
// the Input by collect.
type scrape[T any] struct {
	start   func() *sut.Scrape[T]
	collect func(points []T, in *measure.Input, c Conversion)
	running *sut.Scrape[T]
	points  []T
}

func (s *scrape[T]) Start(time.Time) { s.running = s.start() }

func (s *scrape[T]) Stop() { s.points = s.running.Stop() }

func (s *scrape[T]) Collect(in *measure.Input, c Conversion) { s.collect(s.points, in, c) }

// newWork scrapes the controller instances' reconcile work every sut.WorkScrapeInterval.
func newWork(src Sources) Recorder {
	return &scrape[sut.WorkPoint]{start: func() *sut.Scrape[sut.WorkPoint] { return sut.StartWorkScrape(src.Controllers) },
		collect: collectWork}
}

// collectWork adds the scraped work of the instance that took over after the first restart (none
// when no restart took place).
func collectWork(points []sut.WorkPoint, in *measure.Input, c Conversion) {
	t := c.Seen.Takeover
	if t == nil {
		return
	}
	res := &measure.Work{Source: c.Seen.Work.Source, Controllers: c.Seen.Work.Controllers,
		Interval: sut.WorkScrapeInterval.Seconds(), Started: c.ToSec(t.Started)}
	for _, p := range points {
		if p.Instance == t.Instance {
			res.Samples = append(res.Samples, measure.WorkSample{At: c.ToSec(p.At), ReconcileSeconds: p.ReconcileSeconds,
				Reconciles: p.Reconciles, QueueDepth: p.QueueDepth, Active: p.Active,
				EarlyExitSeconds: p.EarlyExitSeconds, EarlyExits: p.EarlyExits})
		}
	}
	in.Work = res
}

// newMemory reads the controller instances' memory every sut.MemoryScrapeInterval.
func newMemory(src Sources) Recorder {
	return &scrape[sut.MemoryPoint]{start: func() *sut.Scrape[sut.MemoryPoint] { return sut.StartMemoryScrape(src.Controllers) },
		collect: collectMemory}
}

// collectMemory adds the memory points in scenario seconds (none when none was read).
func collectMemory(points []sut.MemoryPoint, in *measure.Input, c Conversion) {
	if len(points) == 0 {
		return
	}
	res := &measure.Memory{Interval: sut.MemoryScrapeInterval.Seconds()}
	if t := c.Seen.Takeover; t != nil {
		res.Takeover, res.TakeoverStarted = ptr.To(t.Instance), c.ToSec(t.Started)
	}
	for _, p := range points {
		res.Shared = res.Shared || p.Instance == sut.HarnessProcess
		res.Readings = append(res.Readings, measure.MemoryReading{Instance: p.Instance, At: c.ToSec(p.At), RSS: p.RSSBytes,
			HWM: p.HWMBytes, HeapInuse: p.HeapInuseBytes, HeapAlloc: p.HeapAllocBytes})
	}
	in.Memory = res
}

// host watches the machine the run shares: its CPU, load and scheduling delay.
type host struct {
	src    Sources
	watch  *machine.Watch
	record *results.Machine
}

func newMachine(src Sources) Recorder { return &host{src: src} }

func (h *host) Start(time.Time) {
	h.watch = machine.Start(machine.Options{RunDir: h.src.RunDir, Parallel: h.src.Parallel})
}

func (h *host) Stop() { h.record = h.watch.Stop() }

func (h *host) Collect(in *measure.Input, _ Conversion) { in.Machine = h.record }
