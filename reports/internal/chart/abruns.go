package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restartsim/restartsim/reports/internal/dataset"
)

// Layout of the A/B figure, in pixels: two columns of panels under the title, the legend to
// the right of the first row.
const (
	abPanelHeight = 300
	abColumns     = 2
)

// ABRunsSize returns the pixel size of the A/B figure for n panels.
func ABRunsSize(n int) (w, h int) {
	return figureWidth, titleHeight + (n+abColumns-1)/abColumns*abPanelHeight
}

// ABRuns draws the A/B figure: per compared metric, every run of both sides at its place in the
// run order (interleaved, so machine drift shows on both), with each side's median dashed.
func ABRuns(d dataset.ABRuns) (PNG, error) {
	if len(d.Panels) == 0 {
		return PNG{}, fmt.Errorf("no A/B metrics to plot")
	}
	baseSty, candSty := lineStyle(0), lineStyle(1)
	baseSty.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	candSty.Dashes = baseSty.Dashes
	var plots []*plot.Plot
	var entries []legendEntry
	for i, panel := range d.Panels {
		p := newPlot(panelTitle(panel), "run, in the order the runs were made", metricUnit(panel.Metric))
		p.X.Min, p.X.Max = 0.5, float64(d.Runs)+0.5
		p.X.Tick.Marker = runTicks(d.Runs)
		p.Y.Min = 0
		b, err := sideScatter(panel.Baseline, 0, draw.CircleGlyph{})
		if err != nil {
			return PNG{}, fmt.Errorf("%s: %w", panel.Metric, err)
		}
		c, err := sideScatter(panel.Candidate, 1, draw.PyramidGlyph{})
		if err != nil {
			return PNG{}, fmt.Errorf("%s: %w", panel.Metric, err)
		}
		p.Add(b, c)
		if finite(panel.BaselineMedian) { // +Inf: most of the side's runs never got there
			p.Add(hline{y: panel.BaselineMedian, style: baseSty})
		}
		if finite(panel.CandidateMedian) {
			p.Add(hline{y: panel.CandidateMedian, style: candSty})
		}
		headroom(p)
		plots = append(plots, p)
		if i == 0 {
			entries = []legendEntry{
				{"baseline (" + d.Baseline + ")", b}, {"candidate (" + d.Candidate + ")", c},
				{"baseline median", lineThumb{baseSty}}, {"candidate median", lineThumb{candSty}},
			}
		}
	}
	rows := (len(plots) + abColumns - 1) / abColumns
	grid := make([][]*plot.Plot, rows)
	for i := range grid {
		grid[i] = make([]*plot.Plot, abColumns)
		for j := range grid[i] {
			if k := i*abColumns + j; k < len(plots) {
				grid[i][j] = plots[k]
			} else {
				grid[i][j] = plot.New() // keeps the grid rectangular; never drawn
			}
		}
	}
	w, h := ABRunsSize(len(plots))
	return render(w, h, func(dc draw.Canvas) error {
		dc = figureTitle(dc, "A/B: every run of both builds, in run order (dashed: medians)")
		area := draw.Crop(dc, 0, -px(legendWidth), 0, 0)
		tiles := draw.Tiles{Rows: rows, Cols: abColumns, PadX: vg.Points(18), PadY: vg.Points(10),
			PadLeft: vg.Points(6), PadRight: vg.Points(6), PadBottom: vg.Points(4)}
		canvases := plot.Align(grid, tiles, area)
		for k, p := range plots {
			p.Draw(canvases[k/abColumns][k%abColumns])
		}
		lc := canvases[0][abColumns-1]
		lc.Min.X, lc.Max.X = area.Max.X+vg.Points(8), dc.Max.X-vg.Points(4)
		drawLegend(draw.Crop(lc, 0, 0, 0, -vg.Points(28)), entries)
		return nil
	})
}

// runTicks labels every run up to 20 runs, else round numbers.
func runTicks(n int) plot.Ticker {
	if n > 20 {
		return plainTicks{}
	}
	ticks := make([]plot.Tick, n)
	for i := range ticks {
		ticks[i] = plot.Tick{Value: float64(i + 1), Label: strconv.Itoa(i + 1)}
	}
	return plot.ConstantTicks(ticks)
}

func sideScatter(pts dataset.Points, colour int, shape draw.GlyphDrawer) (*plotter.Scatter, error) {
	s := &plotter.Scatter{XYs: plotter.XYs{}} // plotter.NewScatter refuses an empty side
	if len(pts) > 0 {
		var err error
		if s, err = plotter.NewScatter(pts); err != nil {
			return nil, err
		}
	}
	s.GlyphStyle = draw.GlyphStyle{Color: palette[colour], Radius: vg.Points(4), Shape: shape}
	return s, nil
}

// panelTitle names the metric and the ratio of medians, and runs missing from a side.
func panelTitle(p dataset.ABPanel) string {
	t := p.Metric
	if p.BaselineMedian > 0 && finite(p.BaselineMedian) && finite(p.CandidateMedian) {
		t += fmt.Sprintf("  (candidate ×%.3g)", p.CandidateMedian/p.BaselineMedian)
	}
	var never []string
	if p.BaselineMissing > 0 {
		never = append(never, fmt.Sprintf("%d baseline", p.BaselineMissing))
	}
	if p.CandidateMissing > 0 {
		never = append(never, fmt.Sprintf("%d candidate", p.CandidateMissing))
	}
	if len(never) > 0 {
		t += ", never: " + strings.Join(never, ", ")
	}
	return t
}

// metricUnit is the y label for a metric by its Prometheus-style name.
func metricUnit(metric string) string {
	switch {
	case strings.Contains(metric, "_cpu_seconds"):
		return "CPU seconds"
	case strings.Contains(metric, "_seconds"):
		return "seconds"
	}
	return "count"
}

// hline is a horizontal line across the data area at y.
type hline struct {
	y     float64
	style draw.LineStyle
}

func (l hline) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	y := trY(l.y)
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}

func (l hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), l.y, l.y
}
