package chart

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restartsim/restartsim/reports/internal/dataset"
)

// markers draws restarts as dashed vertical lines and faults as shaded windows, each labelled
// at the top of the data area.
type markers []dataset.Marker

// Plot implements plot.Plotter.
func (ms markers) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	sty := plt.X.Tick.Label
	sty.Font.Size = vg.Points(9)
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	lineH := sty.Rectangle("M").Size().Y * 1.2
	for i, m := range ms {
		x0, x1 := trX(m.At), trX(m.End)
		switch {
		case m.Kind == dataset.MarkerFault && m.End > m.At:
			c.FillPolygon(faultFill, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		case m.Kind == dataset.MarkerFault:
			c.StrokeLine2(faultStyle, x0, c.Min.Y, x0, c.Max.Y)
		case m.Kind == dataset.MarkerPhase:
			c.StrokeLine2(phaseStyle, x0, c.Min.Y, x0, c.Max.Y)
		default:
			c.StrokeLine2(restartStyle, x0, c.Min.Y, x0, c.Max.Y)
		}
		// Stagger labels so close markers stay legible.
		y := c.Max.Y - vg.Points(2) - vg.Length(i%3)*lineH
		c.FillText(sty, vg.Point{X: x0 + vg.Points(3), Y: y}, m.Label)
	}
}

// DataRange implements plot.DataRanger so the x axis always includes every marker.
func (ms markers) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, m := range ms {
		xmin, xmax = math.Min(xmin, m.At), math.Max(xmax, m.End)
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}

// legend returns one entry per marker kind present, and one that counts the events left out
// (more of them).
func (ms markers) legend(more int) []legendEntry {
	var restart, phase, fault, window bool
	for _, m := range ms {
		switch {
		case m.Kind == dataset.MarkerRestart:
			restart = true
		case m.Kind == dataset.MarkerPhase:
			phase = true
		case m.End > m.At:
			window = true
		default:
			fault = true
		}
	}
	var out []legendEntry
	if restart {
		out = append(out, legendEntry{"controller restart", lineThumb{restartStyle}})
	}
	if phase {
		out = append(out, legendEntry{"restart phase (Lease, caches synced)", lineThumb{phaseStyle}})
	}
	if fault {
		out = append(out, legendEntry{"AWS fault", lineThumb{faultStyle}})
	}
	if window {
		out = append(out, legendEntry{"AWS fault window", boxThumb{faultFill}})
	}
	if more > 0 {
		out = append(out, legendEntry{fmt.Sprintf("(%d later events not drawn)", more), lineThumb{}})
	}
	return out
}
