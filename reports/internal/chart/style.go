package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// DPI is the resolution of every PNG; figure sizes are given in pixels at this resolution.
const DPI = 96

// PNG is one encoded figure.
type PNG struct {
	Data          []byte
	Width, Height int // pixels
}

func px(n int) vg.Length { return vg.Length(n) * vg.Inch / DPI }

// render draws onto a white canvas of w×h pixels and encodes it as PNG.
func render(w, h int, drawFn func(dc draw.Canvas) error) (PNG, error) {
	c := vgimg.NewWith(vgimg.UseWH(px(w), px(h)), vgimg.UseDPI(DPI))
	if err := drawFn(draw.New(c)); err != nil {
		return PNG{}, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return PNG{}, fmt.Errorf("encode png: %w", err)
	}
	return PNG{Data: buf.Bytes(), Width: w, Height: h}, nil
}

// palette is Tableau 10: distinct, colour-blind friendlier than the gonum defaults.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0x94, 0x67, 0xbd, 0xff},
	{0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff},
	{0x17, 0xbe, 0xcf, 0xff}, {0xd6, 0x27, 0x28, 0xff},
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}

// lineStyle returns the i-th series style: a colour, and a dash pattern once colours run out.
// predictedStyle draws a forecast in its strategy's colour, dotted, so it reads as the measured
// line's shadow.
func predictedStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(2), vg.Points(3)}}
}

func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(1.6), Dashes: dashes[(i/len(palette))%len(dashes)]}
}

var (
	throttledColor = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	throttledFill  = color.NRGBA{0xd6, 0x27, 0x28, 0x55}
	restartStyle   = draw.LineStyle{Color: color.Black, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	faultFill      = color.NRGBA{0xff, 0x99, 0x00, 0x40}
	faultStyle     = draw.LineStyle{Color: color.RGBA{0xff, 0x99, 0x00, 0xff}, Width: vg.Points(2)}
	phaseStyle     = draw.LineStyle{Color: color.Gray{0x70}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2)}}
)

// newPlot returns a plot with readable font sizes, a grid and no legend entries (legends are
// drawn beside the plot by drawLegend, never over the data).
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(11)
		a.Tick.Label.Font.Size = vg.Points(10)
	}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{0xdd}
	g.Horizontal.Color = color.Gray{0xdd}
	p.Add(g)
	return p
}

// legendEntry is one row of a legend drawn beside a plot.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

func drawLegend(c draw.Canvas, entries []legendEntry) {
	l := plot.NewLegend()
	l.Left, l.Top = true, true
	l.TextStyle.Font.Size = vg.Points(10)
	l.ThumbnailWidth = vg.Points(22)
	l.Padding = vg.Points(2.5) // between entries: rows of 10 pt text otherwise touch
	for _, e := range entries {
		l.Add(e.name, e.thumb)
	}
	l.Draw(c)
}

// figureTitle draws a title centred across the top of dc and returns the canvas below it.
func figureTitle(dc draw.Canvas, title string) draw.Canvas {
	sty := plot.New().Title.TextStyle
	sty.Font.Size = vg.Points(15)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - vg.Points(6)}, title)
	return draw.Crop(dc, 0, 0, 0, -vg.Points(30))
}

// lineThumb and boxThumb are legend thumbnails for things that are not plotters themselves.
type lineThumb struct{ draw.LineStyle }

func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(t.LineStyle, c.Min.X, y, c.Max.X, y)
}

type boxThumb struct{ color.Color }

func (t boxThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(t.Color, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// newLine is plotter.NewLine with a style.
func newLine(xys plotter.XYer, sty draw.LineStyle) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.LineStyle = sty
	return l, nil
}

// wideRange reports whether positive values span more than the given ratio, so a log axis
// shows them better; ok is false when any value is not positive.
func wideRange(vals []float64, ratio float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if v <= 0 {
			return false
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return len(vals) > 0 && hi/lo > ratio
}

func seconds(v float64) string {
	switch {
	case v >= 120:
		return fmt.Sprintf("%.1f min", v/60)
	case v >= 10:
		return fmt.Sprintf("%.0f s", v)
	default:
		return fmt.Sprintf("%.2g s", v)
	}
}

// timeTicks labels a scenario-time axis in seconds at round steps (10 s, 30 s, 1 min, 5 min, …,
// then powers of ten days), with an unlabelled minor tick halfway.
type timeTicks struct{}

var timeSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400}

// maxTimeTicks is the most labelled ticks of a time axis.
const maxTimeTicks = 12

// Ticks implements plot.Ticker. It returns at most 2 × maxTimeTicks + 2 ticks for any finite
// range: the ticks are counted, not stepped through, so a step lost in the rounding of a huge
// value cannot keep it from ending.
func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(hi-lo) || hi < lo {
		return nil
	}
	step := 0.0
	for _, s := range timeSteps {
		if (hi-lo)/s <= maxTimeTicks {
			step = s
			break
		}
	}
	if step == 0 { // longer than the steps: days by powers of ten
		day := timeSteps[len(timeSteps)-1]
		step = day * math.Pow(10, math.Ceil(math.Log10((hi-lo)/maxTimeTicks/day)))
	}
	first := math.Ceil(lo / step)
	n := int(math.Min(math.Floor(hi/step)-first, maxTimeTicks))
	var ticks []plot.Tick
	for i := 0; i <= n; i++ {
		v := (first + float64(i)) * step
		label := v
		if label == 0 {
			label = 0 // not "-0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%g", label)})
		if half := v + step/2; half <= hi {
			ticks = append(ticks, plot.Tick{Value: half})
		}
	}
	if half := first*step - step/2; half >= lo {
		ticks = append(ticks, plot.Tick{Value: half})
	}
	return ticks
}

func finite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// plainTicks is plot.DefaultTicks with labels printed without trailing zeros ("500", not "500.00").
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}

// headroom raises the top of a linear y axis so lines at the maximum stay visible.
func headroom(p *plot.Plot) {
	if p.Y.Max > 0 {
		p.Y.Max *= 1.08
	}
}
