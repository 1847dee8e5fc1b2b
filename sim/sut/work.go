package sut

import (
	"slices"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// WorkScrapeInterval is the wall time between two scrapes of the controller instances' reconcile
// work: the resolution of the work figures (an event's count is the last scrape at or before it).
// Short enough that a restart lasting a second is seen in steps of a few percent, long enough
// that serving the scrapes costs a controller little.
const WorkScrapeInterval = 50 * time.Millisecond

// WorkPoint is one scrape of one instance's cumulative reconcile work since its start.
type WorkPoint struct {
	Instance int
	At       time.Time
	// ReconcileSeconds and Reconciles are its reconciles' total duration and number.
	ReconcileSeconds, Reconciles float64
	// QueueDepth is the items ready in its work queue and Active the reconciles running (nil:
	// not exposed).
	QueueDepth, Active *float64
	// EarlyExitSeconds and EarlyExits are its reconciles that ended in the checkpoint early exit
	// (the reference controller's restartsim_controller_early_exit_seconds).
	EarlyExitSeconds, EarlyExits float64
}

// WorkSource says where an instance's work comes from: Source is "controller-runtime" or
// "reference" (results.RestartWork.Source), Controllers the controller labels counted (empty: all).
type WorkSource struct {
	Source      string
	Controllers []string
}

// Takeover is the instance that took over after the first restart and when it was started.
type Takeover struct {
	Instance int
	Started  time.Time
}

// WorkScraper is a controller under test whose instances' work can be scraped.
type WorkScraper interface {
	// ScrapeWork scrapes every running instance once.
	ScrapeWork() []WorkPoint
}

// Scrape calls a scraper every interval until Stop, and keeps what it returned.
type Scrape[T any] struct {
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	points []T
}

// StartScrape calls scrape at once, then every interval.
func StartScrape[T any](interval time.Duration, scrape func() []T) *Scrape[T] {
	w := &Scrape[T]{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tk := time.NewTicker(interval)
		defer tk.Stop()
		for {
			w.points = append(w.points, scrape()...)
			select {
			case <-w.stop:
				return
			case <-tk.C:
			}
		}
	}()
	return w
}

// StartWorkScrape scrapes c's reconcile work every WorkScrapeInterval.
func StartWorkScrape(c WorkScraper) *Scrape[WorkPoint] {
	return StartScrape(WorkScrapeInterval, c.ScrapeWork)
}

// Stop ends the scraping and returns every point, in time order per instance. It may be called
// more than once.
func (w *Scrape[T]) Stop() []T {
	w.once.Do(func() { close(w.stop) })
	<-w.done
	return w.points
}

// workFamilies are the metric families a work scrape reads.
var workFamilies = []string{
	"controller_runtime_reconcile_time_seconds", "controller_runtime_reconcile_total", "controller_runtime_active_workers",
	"workqueue_depth", "restartsim_controller_reconcile_time_seconds", "restartsim_controller_active_workers",
	"restartsim_controller_workqueue_depth", "restartsim_controller_early_exit_seconds",
}

// workNames are the families of one source: reconcile time (a histogram), reconcile count (a
// counter; "" to use the histogram's count), running reconciles and queue depth, and the labels
// naming the controller on each.
type workNames struct {
	time, total, active, depth string
	label, depthLabel          string
}

var (
	controllerRuntimeWork = workNames{time: "controller_runtime_reconcile_time_seconds", total: "controller_runtime_reconcile_total",
		active: "controller_runtime_active_workers", depth: "workqueue_depth", label: "controller", depthLabel: "name"}
	referenceWork = workNames{time: "restartsim_controller_reconcile_time_seconds", active: "restartsim_controller_active_workers",
		depth: "restartsim_controller_workqueue_depth", label: "controller", depthLabel: "controller"}
)

// workPoint reads one instance's work from its metric families; controllers restricts the series
// to those controller labels (empty: all).
func workPoint(mfs map[string]*dto.MetricFamily, names workNames, controllers []string) WorkPoint {
	var p WorkPoint
	keep := func(m *dto.Metric, label string) bool {
		if len(controllers) == 0 {
			return true
		}
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				return slices.Contains(controllers, l.GetValue())
			}
		}
		return false
	}
	histCount := 0.0
	if mf := mfs[names.time]; mf != nil {
		for _, m := range mf.GetMetric() {
			if h := m.GetHistogram(); h != nil && keep(m, names.label) {
				p.ReconcileSeconds += h.GetSampleSum()
				histCount += float64(h.GetSampleCount())
			}
		}
	}
	p.Reconciles = histCount
	if mf := mfs[names.total]; names.total != "" && mf != nil {
		p.Reconciles = 0
		for _, m := range mf.GetMetric() {
			if keep(m, names.label) {
				p.Reconciles += value(m)
			}
		}
	}
	sum := func(name, label string) *float64 {
		mf := mfs[name]
		if mf == nil {
			return nil
		}
		v := 0.0
		for _, m := range mf.GetMetric() {
			if keep(m, label) {
				v += value(m)
			}
		}
		return &v
	}
	p.QueueDepth = sum(names.depth, names.depthLabel)
	p.Active = sum(names.active, names.label)
	if mf := mfs["restartsim_controller_early_exit_seconds"]; mf != nil {
		for _, m := range mf.GetMetric() {
			if h := m.GetHistogram(); h != nil {
				p.EarlyExitSeconds += h.GetSampleSum()
				p.EarlyExits += float64(h.GetSampleCount())
			}
		}
	}
	return p
}

// value is a gauge's, counter's or untyped metric's value.
func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

// takeoverOnce records the first restart's taking-over instance.
type takeoverOnce struct {
	mu sync.Mutex
	t  *Takeover
}

func (o *takeoverOnce) set(t Takeover) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.t == nil {
		o.t = &t
	}
}

func (o *takeoverOnce) get() *Takeover {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.t
}
