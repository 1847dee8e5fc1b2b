package reports

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/reports/internal/chart"
	"github.com/restartsim/restartsim/reports/internal/dataset"
	"github.com/restartsim/restartsim/results"
)

// File names written by Render.
const (
	HTMLFile = "report.html"

	FigureTimeline    = "event-timeline"
	FigureAWSCalls    = "aws-calls"
	FigureLatencyCDF  = "change-latency-cdf"
	FigureQueueDepths = "queue-depths"
	FigureRestartCost = "restart-cost"
	FigureSweep       = "ttfmr-sweep"
	FigureABRuns      = "ab-runs"
	FigureMemory      = "controller-memory"
)

// Figure is one PNG written by Render.
type Figure struct {
	ID            string // one of the Figure* constants; the file is ID + ".png"
	Title         string
	Caption       string
	Path          string
	Width, Height int // pixels
	png           []byte
}

// Skipped names a figure Render did not draw and why (for example: no time series).
type Skipped struct {
	ID     string
	Reason string
}

// Files lists what Render wrote.
type Files struct {
	HTML    string
	Figures []Figure
	Skipped []Skipped
}

// Render writes the figures and report.html for r into dir (created if needed). ts is the
// content of timeseries.csv; without it the time-series figures are skipped and the report
// says so. Render fails only on unusable input or I/O errors; the latter are *outfile.Error.
func Render(r *results.Results, ts []results.Sample, dir string) (Files, error) {
	return RenderTo(outfile.Disk{}, r, ts, dir)
}

// RenderTo is Render onto fsys. Each file is written whole or not at all.
func RenderTo(fsys outfile.FS, r *results.Results, ts []results.Sample, dir string) (Files, error) {
	if r == nil || len(r.Strategies) == 0 {
		return Files{}, errors.New("reports: results have no strategies")
	}
	if err := outfile.MkdirAll(dir); err != nil {
		return Files{}, fmt.Errorf("reports: %w", err)
	}
	var files Files
	for _, spec := range figureSpecs(r, ts) {
		if spec.skip != "" {
			files.Skipped = append(files.Skipped, Skipped{ID: spec.id, Reason: spec.skip})
			continue
		}
		img, err := spec.draw()
		if err != nil {
			return files, fmt.Errorf("reports: figure %s: %w", spec.id, err)
		}
		path := filepath.Join(dir, spec.id+".png")
		if err := outfile.WriteBytes(fsys, path, img.Data); err != nil {
			return files, fmt.Errorf("reports: %w", err)
		}
		files.Figures = append(files.Figures, Figure{ID: spec.id, Title: spec.title, Caption: spec.caption,
			Path: path, Width: img.Width, Height: img.Height, png: img.Data})
	}
	files.HTML = filepath.Join(dir, HTMLFile)
	if err := writeHTML(fsys, files.HTML, newPage(r, files)); err != nil {
		return files, fmt.Errorf("reports: %w", err)
	}
	return files, nil
}

// MaxDrawnStrategies caps the strategies the figures draw (a panel each in some of them); the
// report's tables list every one.
const MaxDrawnStrategies = 12

// drawn is r with the strategies the figures draw, and a note for the captions when some are left
// out.
func drawn(r *results.Results) (*results.Results, string) {
	n := len(r.Strategies)
	if n <= MaxDrawnStrategies {
		return r, ""
	}
	d := *r
	d.Strategies = r.Strategies[:MaxDrawnStrategies]
	return &d, fmt.Sprintf(" Only the first %d of the %d strategies are drawn; the tables list every one.", MaxDrawnStrategies, n)
}

type figureSpec struct {
	id, title, caption string
	skip               string // non-empty: reason the figure is not drawn
	draw               func() (chart.PNG, error)
}

func figureSpecs(all *results.Results, ts []results.Sample) []figureSpec {
	r, note := drawn(all)
	tl := dataset.NewTimeline(ts, dataset.MaxBins)
	noTS := ""
	switch {
	case tl.Empty():
		noTS = "no timeseries.csv samples"
	case !slices.ContainsFunc(r.Strategies, func(s results.Strategy) bool { return tl.Has(s.Name) }):
		noTS = "no timeseries.csv samples of the strategies drawn"
	}
	cdf := dataset.NewLatencyCDF(r)
	noCDF := ""
	if cdf.Empty() {
		noCDF = "no meaningful change was applied in any strategy"
	}
	sweep, hasSweep := dataset.NewSweep(r)
	noSweep := ""
	if !hasSweep {
		noSweep = "the scenario does not sweep fleet size"
	}
	mem := dataset.NewMemory(r, tl)
	noMemory := noTS
	if noMemory == "" && len(mem.Panels) == 0 {
		noMemory = "no controller memory was read"
	}
	timeline := dataset.NewEventTimeline(r)
	noTimeline := ""
	if timeline.Empty() {
		noTimeline = "no strategy restarted"
	}
	specs := []figureSpec{
		{id: FigureTimeline, title: "Event timeline",
			caption: "Per strategy, the controller lane shows every restart's phases: down (the old instance stopped, the scenario's downtime), started (the process runs: waiting for the Lease with leader election, else syncing its caches), leading (holds the Lease, caches syncing), caches synced, and applying changes from the first meaningful mutation on; the black tick is a restart's first reconcile that reached AWS. Below, each change from when it was made (dot) to when AWS reflected it (bar); blue ones are the first restart's changes, which blind time counts. Phases the controller does not expose merge into the one before.",
			skip:    noTimeline, draw: func() (chart.PNG, error) { return chart.EventTimeline(timeline) }},
		{id: FigureAWSCalls, title: "AWS API calls per second",
			caption: "Calls per operation over scenario time, one panel per strategy; throttled calls shaded red; dashed black lines are controller restarts, orange marks AWS faults.",
			skip:    noTS, draw: func() (chart.PNG, error) { return chart.CallRates(dataset.NewCallRates(r, tl)) }},
		{id: FigureLatencyCDF, title: "Per-change latency (CDF)",
			caption: "For each meaningful change, the time from the change (or the restart, for changes already pending) until AWS reflects it. Dashed vertical lines mark each strategy's TTFMR, which is timed from the restart's origin, not from a change: it can exceed every change's latency when the changes came after the restart.",
			skip:    noCDF, draw: func() (chart.PNG, error) { return chart.LatencyCDF(cdf) }},
		{id: FigureQueueDepths, title: "Queue depths",
			caption: "Controller work-queue depth and deferred-queue depth over scenario time, one line per strategy.",
			skip:    noTS, draw: func() (chart.PNG, error) { return chart.QueueDepths(dataset.NewQueueDepths(r, tl)) }},
		{id: FigureMemory, title: "Controller memory",
			caption: "Per strategy, each controller instance's resident memory (solid; the largest of its readings, which sample it every 20 ms, per bin) and Go heap in use (dashed, from its go_memstats_heap_inuse_bytes; a gap where its metrics endpoint did not answer, often early in its start), over the measured phase. Black dashed lines are restarts; grey dotted lines when the instance that took over got the Lease and when its caches synced: a restart's peak usually comes while the informers list. In-process replicas share the harness's process, whose memory is shown.",
			skip:    noMemory, draw: func() (chart.PNG, error) { return chart.Memory(mem) }},
		{id: FigureRestartCost, title: "Cost of the restart",
			caption: "AWS API calls made before the first meaningful reconcile, and Kubernetes writes by the controller, per strategy.",
			draw:    func() (chart.PNG, error) { return chart.Bars(dataset.NewBars(r)) }},
		{id: FigureSweep, title: "TTFMR vs fleet size",
			caption: "Time to first meaningful reconcile against the number of TargetGroupBindings, log-log, one line per strategy.",
			skip:    noSweep, draw: func() (chart.PNG, error) { return chart.Sweep(sweep) }},
	}
	for i := range specs {
		specs[i].caption += note
	}
	// Only an A/B run has this figure, so other runs do not list it as skipped. Its sides may be
	// any of the strategies.
	if ab, ok := dataset.NewABRuns(all); ok {
		noAB := ""
		if len(ab.Panels) == 0 {
			noAB = "neither side measured a compared metric"
		}
		specs = append(specs, figureSpec{id: FigureABRuns, title: "A/B runs",
			caption: "Per compared metric, every run of the baseline (circles) and the candidate (triangles) at its place in the order the runs were made, which interleaves the two builds so that the machine's drift over the run weighs on both alike; dashed lines are each side's median, the figures the gate compares. Runs that never reached the measured event are counted in the panel's title.",
			skip:    noAB, draw: func() (chart.PNG, error) { return chart.ABRuns(ab) }})
	}
	return specs
}
