package chart

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restartsim/restartsim/reports/internal/dataset"
)

// Layout of the time-series figures, in pixels.
const (
	figureWidth  = 1400
	legendWidth  = 290
	titleHeight  = 40
	panelHeight  = 340
	queuesHeight = 2*panelHeight + titleHeight
)

// CallRatesSize returns the pixel size of the AWS calls figure for n panels.
func CallRatesSize(n int) (w, h int) { return figureWidth, titleHeight + n*panelHeight }

// CallRates draws figure 1: one panel per strategy, one line per operation, throttled calls as a
// red area, restart and fault markers.
func CallRates(d dataset.CallRates) (PNG, error) {
	if len(d.Panels) == 0 {
		return PNG{}, fmt.Errorf("no time series to plot")
	}
	// One colour per operation across all panels.
	opIndex := map[string]int{}
	for _, p := range d.Panels {
		for _, l := range p.Calls {
			if _, ok := opIndex[l.Name]; !ok {
				opIndex[l.Name] = len(opIndex)
			}
		}
	}
	yLabel := "AWS calls/s (" + dataset.BinLabel(d.BinSeconds, false) + ")"
	plots := make([][]*plot.Plot, len(d.Panels))
	legends := make([][]legendEntry, len(d.Panels))
	for i, panel := range d.Panels {
		p := newPlot(fmt.Sprintf("strategy %q", panel.Strategy), "scenario time (s)", yLabel)
		p.X.Tick.Marker = timeTicks{}
		p.Y.Min = 0
		ms := markers(panel.Markers)
		p.Add(ms)
		thr, err := newLine(panel.Throttled.Points, draw.LineStyle{Color: throttledColor, Width: vg.Points(1)})
		if err != nil {
			return PNG{}, err
		}
		thr.FillColor = throttledFill
		p.Add(thr)
		var entries []legendEntry
		for _, l := range panel.Calls {
			line, err := newLine(l.Points, lineStyle(opIndex[l.Name]))
			if err != nil {
				return PNG{}, fmt.Errorf("%s %s: %w", panel.Strategy, l.Name, err)
			}
			p.Add(line)
			entries = append(entries, legendEntry{l.Name, line})
		}
		headroom(p)
		entries = append(entries, legendEntry{panel.Throttled.Name, thr})
		legends[i] = append(entries, ms.legend(panel.MoreMarkers)...)
		plots[i] = []*plot.Plot{p}
	}
	// One y scale for every panel, so strategies compare at a glance.
	top := 0.0
	for _, row := range plots {
		top = max(top, row[0].Y.Max)
	}
	for _, row := range plots {
		row[0].Y.Max = top
	}
	w, h := CallRatesSize(len(d.Panels))
	return render(w, h, func(dc draw.Canvas) error {
		dc = figureTitle(dc, "AWS API calls per second by operation (throttled calls shaded red)")
		drawPanels(dc, plots, legends)
		return nil
	})
}

// QueueDepthsSize returns the pixel size of the queue-depth figure.
func QueueDepthsSize() (w, h int) { return figureWidth, queuesHeight }

// QueueDepths draws figure 3: work-queue depth above, deferred-queue depth below, one line per
// strategy.
func QueueDepths(d dataset.QueueDepths) (PNG, error) {
	if len(d.Work) == 0 {
		return PNG{}, fmt.Errorf("no time series to plot")
	}
	yLabel := "items (" + dataset.BinLabel(d.BinSeconds, true) + ")"
	panels := []struct {
		title string
		lines []dataset.Line
	}{
		{"controller work queue depth", d.Work},
		{"deferred queue depth (TGBs waiting for their forced re-reconcile)", d.Deferred},
	}
	ms := markers(d.Markers)
	var plots [][]*plot.Plot
	var legends [][]legendEntry
	for _, panel := range panels {
		p := newPlot(panel.title, "scenario time (s)", yLabel)
		p.X.Tick.Marker = timeTicks{}
		p.Y.Min = 0
		p.Add(ms)
		var entries []legendEntry
		for i, l := range panel.lines {
			line, err := newLine(l.Points, lineStyle(i))
			if err != nil {
				return PNG{}, fmt.Errorf("%s %s: %w", panel.title, l.Name, err)
			}
			p.Add(line)
			entries = append(entries, legendEntry{"strategy " + l.Name, line})
		}
		headroom(p)
		plots = append(plots, []*plot.Plot{p})
		legends = append(legends, append(entries, ms.legend(d.MoreMarkers)...))
	}
	w, h := QueueDepthsSize()
	return render(w, h, func(dc draw.Canvas) error {
		dc = figureTitle(dc, "Queue depths over scenario time, per strategy")
		drawPanels(dc, plots, legends)
		return nil
	})
}

// drawPanels lays out one plot per row with aligned axes and draws each row's legend to the
// right of its plot.
func drawPanels(dc draw.Canvas, plots [][]*plot.Plot, legends [][]legendEntry) {
	area := draw.Crop(dc, 0, -px(legendWidth), 0, 0)
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadX: vg.Points(4), PadY: vg.Points(10),
		PadLeft: vg.Points(6), PadRight: vg.Points(6), PadBottom: vg.Points(4)}
	canvases := plot.Align(plots, tiles, area)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
		lc := canvases[i][0]
		lc.Min.X, lc.Max.X = area.Max.X+vg.Points(8), dc.Max.X-vg.Points(4)
		lc = draw.Crop(lc, 0, 0, 0, -vg.Points(28)) // start below the panel title
		drawLegend(lc, legends[i])
	}
}
