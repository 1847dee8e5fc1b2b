package chart

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/restartsim/restartsim/reports/internal/dataset"
)

// Pixel sizes of the single-panel figures.
const (
	cdfWidth, cdfHeight     = 1400, 620
	barsWidth, barsHeight   = 1400, 560
	sweepWidth, sweepHeight = 1400, 620
)

// LatencyCDFSize, BarsSize and SweepSize return the pixel sizes of figures 2, 4 and 5.
func LatencyCDFSize() (w, h int) { return cdfWidth, cdfHeight }

// BarsSize returns the pixel size of figure 4.
func BarsSize() (w, h int) { return barsWidth, barsHeight }

// SweepSize returns the pixel size of figure 5.
func SweepSize() (w, h int) { return sweepWidth, sweepHeight }

// LatencyCDF draws figure 2: the CDF of per-change latency, one step line per strategy, with
// each strategy's TTFMR as a dashed vertical line in the same colour.
func LatencyCDF(d dataset.LatencyCDF) (PNG, error) {
	if d.Empty() {
		return PNG{}, fmt.Errorf("no applied changes to plot")
	}
	var xs []float64
	for _, l := range d.Lines {
		for _, pt := range l.Points {
			xs = append(xs, pt.X)
		}
		if l.TTFMR != nil {
			xs = append(xs, *l.TTFMR)
		}
	}
	xLabel := "latency from change (or restart) until AWS reflects it (s)"
	logX := wideRange(xs, 30)
	if logX {
		xLabel += ", log scale"
	}
	p := newPlot("", xLabel, "fraction of meaningful changes applied")
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	p.Y.Min, p.Y.Max = 0, 1
	var entries []legendEntry
	for i, l := range d.Lines {
		sty := lineStyle(i)
		sty.Width = vg.Points(2)
		if len(l.Points) > 0 {
			line, err := newLine(l.Points, sty)
			if err != nil {
				return PNG{}, fmt.Errorf("%s: %w", l.Strategy, err)
			}
			line.StepStyle = plotter.PostStep
			p.Add(line)
			entries = append(entries, legendEntry{fmt.Sprintf("%s (%d of %d changes applied)", l.Strategy, l.Applied, l.Changes), line})
		}
		if l.TTFMR == nil {
			entries = append(entries, legendEntry{fmt.Sprintf("TTFMR %s: never", l.Strategy), lineThumb{draw.LineStyle{}}})
			continue
		}
		ttfmr := sty
		ttfmr.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
		ttfmr.Width = vg.Points(1.5)
		mark := vline{x: *l.TTFMR, style: ttfmr}
		p.Add(mark)
		entries = append(entries, legendEntry{fmt.Sprintf("TTFMR %s = %s", l.Strategy, seconds(*l.TTFMR)), lineThumb{ttfmr}})
	}
	return render(cdfWidth, cdfHeight, func(dc draw.Canvas) error {
		dc = figureTitle(dc, "Per-change latency after the restart (CDF), TTFMR marked")
		drawSingle(dc, p, entries)
		return nil
	})
}

// vline is a vertical line across the data area at x.
type vline struct {
	x     float64
	style draw.LineStyle
}

func (v vline) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	x := trX(v.x)
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
}

func (v vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return v.x, v.x, math.Inf(1), math.Inf(-1)
}

// Bars draws figure 4: AWS calls before the first meaningful reconcile and Kubernetes writes,
// one bar per strategy in each panel, with the values written on the bars.
func Bars(d dataset.Bars) (PNG, error) {
	if len(d.Strategies) == 0 {
		return PNG{}, fmt.Errorf("no strategies to plot")
	}
	callLabels := make([]string, len(d.Strategies))
	writeLabels := make([]string, len(d.Strategies))
	for i := range d.Strategies {
		callLabels[i] = fmt.Sprintf("%.0f (%.0f throttled)", d.CallsBeforeFirst[i], d.ThrottledBeforeFirst[i])
		if !d.FirstMeaningfulReached[i] {
			callLabels[i] = fmt.Sprintf("%.0f, never reached", d.CallsBeforeFirst[i])
		}
		writeLabels[i] = fmt.Sprintf("%.0f (%.0f checkpoint)", d.K8sWrites[i], d.CheckpointPatches[i])
	}
	left, err := barPanel("AWS calls before the first meaningful reconcile", "AWS API calls", d.Strategies, d.CallsBeforeFirst, callLabels)
	if err != nil {
		return PNG{}, err
	}
	right, err := barPanel("Kubernetes API writes by the controller", "writes", d.Strategies, d.K8sWrites, writeLabels)
	if err != nil {
		return PNG{}, err
	}
	return render(barsWidth, barsHeight, func(dc draw.Canvas) error {
		dc = figureTitle(dc, "Cost of the restart per strategy")
		tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(24), PadLeft: vg.Points(6), PadRight: vg.Points(10), PadBottom: vg.Points(4)}
		canvases := plot.Align([][]*plot.Plot{{left, right}}, tiles, dc)
		left.Draw(canvases[0][0])
		right.Draw(canvases[0][1])
		return nil
	})
}

func barPanel(title, yLabel string, names []string, vals dataset.Values, labels []string) (*plot.Plot, error) {
	p := newPlot(title, "strategy", yLabel)
	p.Y.Min = 0
	top := 0.0
	for i := range names {
		b, err := plotter.NewBarChart(vals[i:i+1], vg.Points(60))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", names[i], err)
		}
		b.XMin = float64(i)
		b.Color = palette[i%len(palette)]
		b.LineStyle.Width = 0
		p.Add(b)
		top = math.Max(top, vals[i])
	}
	xys := make(plotter.XYs, len(names))
	for i := range names {
		xys[i] = plotter.XY{X: float64(i), Y: vals[i]}
	}
	lbl, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lbl.TextStyle {
		lbl.TextStyle[i].XAlign = draw.XCenter
		lbl.TextStyle[i].Font.Size = vg.Points(10)
	}
	lbl.Offset = vg.Point{Y: vg.Points(4)}
	p.Add(lbl)
	p.Y.Max = math.Max(1, top*1.15) // room for the labels
	p.Y.Tick.Marker = plainTicks{}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	return p, nil
}

// Sweep draws figure 5: TTFMR against the number of TGBs, log-log, one line per strategy, and
// dotted beside it the restart-queue model's forecast where the sweep has one.
func Sweep(d dataset.Sweep) (PNG, error) {
	if len(d.Lines) == 0 {
		return PNG{}, fmt.Errorf("no sweep points to plot")
	}
	p := newPlot("", "TargetGroupBindings in the fleet (log scale)", "TTFMR (s, log scale)")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	// Tick every swept size, so each point can be read off the axis.
	var sizes []plot.Tick
	seen := map[float64]bool{}
	for _, l := range d.Lines {
		for _, pt := range l.Points {
			if !seen[pt.X] {
				seen[pt.X] = true
				sizes = append(sizes, plot.Tick{Value: pt.X, Label: strconv.FormatFloat(pt.X, 'f', -1, 64)})
			}
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(sizes)
	var entries []legendEntry
	for i, l := range d.Lines {
		line, pts, err := plotter.NewLinePoints(l.Points)
		if err != nil {
			return PNG{}, fmt.Errorf("%s: %w", l.Name, err)
		}
		line.LineStyle = lineStyle(i)
		line.LineStyle.Width = vg.Points(2)
		pts.Color = palette[i%len(palette)]
		pts.Shape = draw.CircleGlyph{}
		pts.Radius = vg.Points(3.5)
		p.Add(line, pts)
		entries = append(entries, legendEntry{"strategy " + l.Name, line})
		if i < len(d.Predicted) && len(d.Predicted[i].Points) > 0 {
			pred, err := plotter.NewLine(d.Predicted[i].Points)
			if err != nil {
				return PNG{}, fmt.Errorf("%s predicted: %w", l.Name, err)
			}
			pred.LineStyle = predictedStyle(i)
			p.Add(pred)
			entries = append(entries, legendEntry{"  predicted by the queue model", pred})
		}
	}
	widenLog(&p.X)
	widenLog(&p.Y)
	return render(sweepWidth, sweepHeight, func(dc draw.Canvas) error {
		dc = figureTitle(dc, "Time to first meaningful reconcile vs fleet size")
		drawSingle(dc, p, entries)
		return nil
	})
}

// widenLog gives a log axis of one value a decade around it: gonum would widen it by one unit
// either side, to zero or below for values up to 1, which a log scale cannot draw.
func widenLog(a *plot.Axis) {
	if a.Min == a.Max {
		a.Min, a.Max = a.Min/math.Sqrt(10), a.Max*math.Sqrt(10)
	}
}

// drawSingle draws one plot with its legend to the right.
func drawSingle(dc draw.Canvas, p *plot.Plot, entries []legendEntry) {
	drawPanels(dc, [][]*plot.Plot{{p}}, [][]legendEntry{entries})
}
