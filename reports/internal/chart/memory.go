package chart

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restartsim/restartsim/reports/internal/dataset"
)

// MemorySize returns the pixel size of the memory figure for n panels.
func MemorySize(n int) (w, h int) { return figureWidth, titleHeight + n*panelHeight }

// Memory draws the memory figure: one panel per strategy, one colour per instance, its resident
// size solid and its Go heap in use dashed, restarts and their phases marked.
func Memory(d dataset.Memory) (PNG, error) {
	if len(d.Panels) == 0 {
		return PNG{}, fmt.Errorf("no memory readings to plot")
	}
	yLabel := "MiB (" + dataset.BinLabel(d.BinSeconds, true) + ")"
	var plots [][]*plot.Plot
	var legends [][]legendEntry
	for _, panel := range d.Panels {
		title := fmt.Sprintf("strategy %q", panel.Strategy)
		if panel.Shared {
			title += ": the harness's process, which in-process replicas share"
		}
		p := newPlot(title, "scenario time (s)", yLabel)
		p.X.Tick.Marker = timeTicks{}
		p.Y.Min = 0
		ms := markers(panel.Markers)
		p.Add(ms)
		var entries []legendEntry
		for _, l := range panel.Lines {
			sty := lineStyle(l.Instance)
			sty.Dashes = nil
			if l.Heap {
				sty.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			}
			for _, run := range dataset.Runs(l.Points, d.BinSeconds) {
				if len(run) == 1 { // a lone reading between gaps: a dot
					dot, err := plotter.NewScatter(run)
					if err != nil {
						return PNG{}, fmt.Errorf("%s %s: %w", panel.Strategy, l.Name, err)
					}
					dot.GlyphStyle.Color, dot.GlyphStyle.Radius = sty.Color, vg.Points(2)
					p.Add(dot)
					continue
				}
				line, err := newLine(run, sty)
				if err != nil {
					return PNG{}, fmt.Errorf("%s %s: %w", panel.Strategy, l.Name, err)
				}
				p.Add(line)
			}
			entries = append(entries, legendEntry{l.Name, lineThumb{sty}})
		}
		headroom(p)
		plots = append(plots, []*plot.Plot{p})
		legends = append(legends, append(entries, ms.legend(panel.MoreMarkers)...))
	}
	w, h := MemorySize(len(d.Panels))
	return render(w, h, func(dc draw.Canvas) error {
		dc = figureTitle(dc, "Controller memory over scenario time, per strategy")
		drawPanels(dc, plots, legends)
		return nil
	})
}
