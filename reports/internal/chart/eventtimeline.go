package chart

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restartsim/restartsim/reports/internal/dataset"
)

// Layout of the event timeline, in pixels: each panel has an axis and a title, plus a lane per row.
const (
	laneHeight      = 20
	timelinePanelPx = 110
)

var (
	phaseColors = map[string]color.Color{
		dataset.PhaseDown:     color.RGBA{0x55, 0x55, 0x55, 0xff},
		dataset.PhaseStarting: color.RGBA{0xff, 0xbb, 0x78, 0xff},
		dataset.PhaseWaiting:  color.RGBA{0xff, 0xbb, 0x78, 0xff},
		dataset.PhaseLeading:  color.RGBA{0xf7, 0xe0, 0x5a, 0xff},
		dataset.PhaseSynced:   color.RGBA{0x9e, 0xc9, 0xe8, 0xff},
		dataset.PhaseRunning:  color.RGBA{0x98, 0xdf, 0x8a, 0xff},
	}
	phaseOrder         = []string{dataset.PhaseDown, dataset.PhaseStarting, dataset.PhaseWaiting, dataset.PhaseLeading, dataset.PhaseSynced, dataset.PhaseRunning}
	restartChangeStyle = draw.LineStyle{Color: palette[0], Width: vg.Points(3)}
	otherChangeStyle   = draw.LineStyle{Color: color.Gray{0x99}, Width: vg.Points(3)}
	neverAppliedStyle  = draw.LineStyle{Color: throttledColor, Width: vg.Points(2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	firstAWSCallStyle  = draw.LineStyle{Color: color.Black, Width: vg.Points(2)}
	firstMeaningfulDot = draw.GlyphStyle{Color: throttledColor, Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}
)

// EventTimelineSize returns the pixel size of the event timeline for its panels.
func EventTimelineSize(d dataset.EventTimeline) (w, h int) {
	h = titleHeight
	for _, p := range d.Panels {
		h += timelinePanelPx + laneHeight*(1+len(p.Changes))
	}
	return figureWidth, h
}

// EventTimeline draws the Gantt-style figure: per strategy, the controller lane (down, starting,
// leading, caches synced, applying changes, with the first reconcile and the first meaningful
// mutation marked) above one lane per change from when it was made to when AWS reflected it.
func EventTimeline(d dataset.EventTimeline) (PNG, error) {
	if d.Empty() {
		return PNG{}, fmt.Errorf("no restart to draw")
	}
	var plots [][]*plot.Plot
	var legends [][]legendEntry
	for _, panel := range d.Panels {
		title := fmt.Sprintf("strategy %q", panel.Strategy)
		if panel.MoreChanges > 0 {
			title += fmt.Sprintf(" (%d more changes not drawn)", panel.MoreChanges)
		}
		p := newPlot(title, "scenario time (s)", "")
		p.X.Tick.Marker = timeTicks{}
		p.X.Min, p.X.Max = d.From, d.To
		lanes := timelineLanes{panel: panel, to: d.To}
		p.Add(lanes, markers(panel.Markers))
		p.Y.Min, p.Y.Max = -0.5, float64(lanes.count())-0.5
		p.Y.Tick.Marker = plot.ConstantTicks(lanes.ticks())
		p.Y.Tick.Label.Font.Size = vg.Points(9)
		plots = append(plots, []*plot.Plot{p})
		legends = append(legends, timelineLegend(panel))
	}
	w, h := EventTimelineSize(d)
	return render(w, h, func(dc draw.Canvas) error {
		dc = figureTitle(dc, "Event timeline: each restart's phases and each change from made to applied")
		// Panels get heights by their lanes, so every lane is as tall in each.
		top := dc.Max.Y
		for i, p := range plots {
			c := dc
			c.Max.Y = top
			top -= px(timelinePanelPx + laneHeight*(1+len(d.Panels[i].Changes)))
			c.Min.Y = top
			drawPanels(c, [][]*plot.Plot{p}, [][]legendEntry{legends[i]})
		}
		return nil
	})
}

func timelineLegend(panel dataset.TimelinePanel) []legendEntry {
	var out []legendEntry
	present := map[string]bool{}
	for _, sp := range panel.Spans {
		present[sp.Phase] = true
	}
	for _, ph := range phaseOrder {
		if present[ph] {
			out = append(out, legendEntry{ph, boxThumb{phaseColors[ph]}})
		}
	}
	if len(panel.FirstAWSCalls) > 0 {
		out = append(out, legendEntry{"first AWS call", lineThumb{firstAWSCallStyle}})
	}
	if len(panel.FirstMeaningfuls) > 0 {
		out = append(out, legendEntry{"first meaningful mutation", glyphThumb{firstMeaningfulDot}})
	}
	out = append(out, legendEntry{"restart's change: made → applied", lineThumb{restartChangeStyle}},
		legendEntry{"later change: made → applied", lineThumb{otherChangeStyle}})
	for _, c := range panel.Changes {
		if c.Applied == nil {
			out = append(out, legendEntry{"never applied", lineThumb{neverAppliedStyle}})
			break
		}
	}
	return append(out, markers(panel.Markers).legend(panel.MoreMarkers)...)
}

type glyphThumb struct{ draw.GlyphStyle }

func (g glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(g.GlyphStyle, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2})
}

// timelineLanes draws one panel's lanes: the controller on top, then the changes in order.
type timelineLanes struct {
	panel dataset.TimelinePanel
	to    float64
}

func (t timelineLanes) count() int { return 1 + len(t.panel.Changes) }

// laneY is the y value of lane i (0: the controller), top to bottom.
func (t timelineLanes) laneY(i int) float64 { return float64(t.count() - 1 - i) }

func (t timelineLanes) ticks() []plot.Tick {
	ticks := []plot.Tick{{Value: t.laneY(0), Label: "controller"}}
	for i, c := range t.panel.Changes {
		ticks = append(ticks, plot.Tick{Value: t.laneY(i + 1), Label: c.ID})
	}
	return ticks
}

// Plot implements plot.Plotter.
func (t timelineLanes) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	clampX := func(v float64) vg.Length { return trX(math.Max(plt.X.Min, math.Min(plt.X.Max, v))) }
	y := trY(t.laneY(0))
	half := px(laneHeight) * 0.35
	for _, sp := range t.panel.Spans {
		x0, x1 := clampX(sp.From), clampX(sp.To)
		c.FillPolygon(phaseColors[sp.Phase], []vg.Point{{X: x0, Y: y - half}, {X: x1, Y: y - half}, {X: x1, Y: y + half}, {X: x0, Y: y + half}})
	}
	for _, v := range t.panel.FirstAWSCalls {
		c.StrokeLine2(firstAWSCallStyle, clampX(v), y-half*1.4, clampX(v), y+half*1.4)
	}
	for _, v := range t.panel.FirstMeaningfuls {
		c.DrawGlyph(firstMeaningfulDot, vg.Point{X: clampX(v), Y: y})
	}
	for i, ch := range t.panel.Changes {
		cy := trY(t.laneY(i + 1))
		sty := otherChangeStyle
		if ch.OfRestart {
			sty = restartChangeStyle
		}
		x0 := clampX(ch.Made)
		c.DrawGlyph(draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}, vg.Point{X: x0, Y: cy})
		if ch.Applied == nil {
			c.StrokeLine2(neverAppliedStyle, x0, cy, clampX(t.to), cy)
			continue
		}
		x1 := clampX(*ch.Applied)
		c.StrokeLine2(sty, x0, cy, x1, cy)
		c.StrokeLine2(draw.LineStyle{Color: sty.Color, Width: vg.Points(2)}, x1, cy-half, x1, cy+half)
	}
}
