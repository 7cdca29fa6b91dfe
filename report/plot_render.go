package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/shutdownlab/shutdownlab/record"
)

// Drawing happens here; plot.go prepares the data. Sizes, fonts (gonum's
// embedded Liberation fonts) and colours are fixed, so the same inputs give
// the same PNG bytes.

// plotDPI is the resolution of every PNG.
const plotDPI = 96

var nan = math.NaN()

// Latency plot geometry: the plot on the left, the legend in a column on
// the right (it never covers a point).
var (
	latencyW = 10 * vg.Inch
	latencyH = 4.5 * vg.Inch
	legendW  = 2.7 * vg.Inch // fits "t signal (engine_event) +16.8 ms"
)

// sans is the font of every text: gonum's embedded Liberation Sans.
func sans(size float64) font.Font {
	return font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, vg.Points(size))
}

// newPlot returns a plot with sans-serif text, a grid and a title, and a
// legend to be drawn beside it (top-left of its own column).
func newPlot(title string) (*plot.Plot, *plot.Legend) {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(12)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(11)
		a.Tick.Label.Font = sans(10)
		a.Tick.Marker = niceTicks{}
	}
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font = sans(10)
	leg.Padding = vg.Points(3)
	leg.ThumbnailWidth = vg.Points(24)
	return p, &leg
}

// niceTicks labels about 6 to 12 steps of 1, 2 or 5 × 10^k, with an
// unlabelled minor tick halfway.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', -1, 64)}}
	}
	span := hi - lo
	step := math.Pow(10, math.Floor(math.Log10(span/10)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 12 {
			step *= m
			break
		}
	}
	var ticks []plot.Tick
	prec := max(0, -int(math.Floor(math.Log10(step))))
	for i := math.Ceil(lo / step * 2); i/2*step <= hi+1e-9*span; i++ {
		v := i / 2 * step
		t := plot.Tick{Value: v}
		if int64(i)%2 == 0 {
			t.Label = strconv.FormatFloat(v, 'f', prec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// rgb is an opaque colour from 0xRRGGBB.
func rgb(x uint32) color.RGBA {
	return color.RGBA{R: uint8(x >> 16), G: uint8(x >> 8), B: uint8(x), A: 255}
}

// seriesStyles are the glyphs of the latency series (Okabe–Ito colours,
// readable with colour-blindness; failures also differ by shape and are
// larger than ok points).
var seriesStyles = map[string]draw.GlyphStyle{
	seriesOK:                    {Color: rgb(0x56B4E9), Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}},
	seriesHTTP5xx:               {Color: rgb(0xE69F00), Radius: vg.Points(3), Shape: draw.TriangleGlyph{}},
	seriesHTTPOther:             {Color: rgb(0xCC79A7), Radius: vg.Points(3), Shape: draw.PyramidGlyph{}},
	string(record.ClassRefused): {Color: rgb(0xD55E00), Radius: vg.Points(3), Shape: draw.CrossGlyph{}},
	string(record.ClassReset):   {Color: rgb(0x009E73), Radius: vg.Points(3), Shape: draw.SquareGlyph{}},
	string(record.ClassEOF):     {Color: rgb(0x0072B2), Radius: vg.Points(3), Shape: draw.RingGlyph{}},
	string(record.ClassTimeout): {Color: rgb(0x000000), Radius: vg.Points(3), Shape: draw.PlusGlyph{}},
	string(record.ClassAborted): {Color: rgb(0x8C7A00), Radius: vg.Points(3), Shape: draw.CircleGlyph{}},
	seriesUnknown:               {Color: rgb(0x999999), Radius: vg.Points(3), Shape: draw.BoxGlyph{}},
}

// markerStyles are the vertical lines of the latency plot.
var markerStyles = map[string]draw.LineStyle{
	"t0":                {Color: rgb(0x000000), Width: vg.Points(1.5)},
	"t":                 {Color: rgb(0xD55E00), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}},
	PhaseReadyFalse:     {Color: rgb(0x009E73), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}},
	PhaseListenerClosed: {Color: rgb(0xCC79A7), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)}},
	PhaseDrained:        {Color: rgb(0x0072B2), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(4), vg.Points(4)}},
	PhaseDeadline:       {Color: rgb(0xE69F00), Width: vg.Points(2), Dashes: []vg.Length{vg.Points(8), vg.Points(3)}},
	PhaseExit:           {Color: rgb(0x7F0000), Width: vg.Points(2.5)},
	PhaseDeregAcked:     {Color: rgb(0x56B4E9), Width: vg.Points(2), Dashes: []vg.Length{vg.Points(1), vg.Points(3)}},
}

// vline is a vertical line across the whole data area at X (data units).
type vline struct {
	X     float64
	Style draw.LineStyle
}

// Plot implements plot.Plotter.
func (l *vline) Plot(c draw.Canvas, p *plot.Plot) {
	x := c.X(p.X.Norm(l.X))
	c.StrokeLine2(l.Style, x, c.Min.Y, x, c.Max.Y)
}

// Thumbnail implements plot.Thumbnailer: a short horizontal line.
func (l *vline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// renderPNG draws fn onto a w × h canvas and encodes it; a panic inside
// gonum/plot becomes an error.
func renderPNG(w, h vg.Length, fn func(draw.Canvas) error) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("plot panicked: %v", r)
		}
	}()
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(plotDPI), vgimg.UseBackgroundColor(color.White))
	if err := fn(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// latencySubtitle says what is drawn and what was left out.
func latencySubtitle(d latencyData) string {
	s := fmt.Sprintf("latency of each request by start time (%d requests", d.Total)
	if d.NotSent > 0 {
		s += fmt.Sprintf("; %d not_sent left out", d.NotSent)
	}
	s += ")"
	if d.NeverExited {
		s += "; the replica never exited"
	}
	if d.Stride > 1 {
		s += fmt.Sprintf("\nsubsampled: every failure, 1 in %d ok requests (%d of %d points drawn)", d.Stride, d.Kept, d.Total)
	}
	return s
}

// renderLatency draws the latency plot of one run.
func renderLatency(d latencyData, title string) ([]byte, error) {
	p, leg := newPlot(title + "\n" + latencySubtitle(d))
	p.X.Label.Text = "request start (s after load start)"
	p.Y.Label.Text = "latency (ms)"

	xmin, xmax, ymax := 0.0, 0.0, 0.0
	for _, s := range d.Series {
		for _, pt := range s.Points {
			xmin, xmax, ymax = math.Min(xmin, pt.X), math.Max(xmax, pt.X), math.Max(ymax, pt.Y)
		}
	}
	// ok points first, then the markers, then failures on top.
	var failures []plot.Plotter
	for _, s := range d.Series {
		sc, err := plotter.NewScatter(latencyXYs(s.Points))
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", s.Key, err)
		}
		sc.GlyphStyle = seriesStyles[s.Key]
		leg.Add(fmt.Sprintf("%s (%d)", s.Key, s.Total), sc)
		if s.Key == seriesOK {
			p.Add(sc)
		} else {
			failures = append(failures, sc)
		}
	}
	for _, m := range d.Markers {
		vl := &vline{X: m.X, Style: markerStyles[m.Name]}
		p.Add(vl)
		leg.Add(m.Label, vl)
		xmin, xmax = math.Min(xmin, m.X), math.Max(xmax, m.X)
	}
	p.Add(failures...)
	xmin, xmax = fdRange(d.FDs, xmin, xmax)
	p.X.Min, p.X.Max = xmin, xmax+math.Max(0.02*(xmax-xmin), 0.01)
	p.Y.Min, p.Y.Max = 0, math.Max(ymax*1.05, 1)
	if len(d.FDs) > 0 {
		return renderWithFDs(p, leg, d)
	}

	return renderPNG(latencyW, latencyH, func(c draw.Canvas) error {
		p.Draw(draw.Crop(c, 0, -legendW, 0, 0))
		leg.YOffs = -vg.Points(40)
		leg.Draw(draw.Crop(c, latencyW-legendW+vg.Points(10), 0, 0, 0))
		return nil
	})
}

// latencyXYs adapts points to plotter.XYer.
type latencyXYs []LatencyPoint

func (p latencyXYs) Len() int                    { return len(p) }
func (p latencyXYs) XY(i int) (float64, float64) { return p[i].X, p[i].Y }

// failureColors are the bar colours of failures.png, by metric position.
var failureColors = []color.RGBA{rgb(0xE69F00), rgb(0xD55E00), rgb(0x7F0000), rgb(0x0072B2)}

// renderFailures draws failures.png: per variant, one bar per metric of
// failureMetrics (median over valid runs), its value printed above it.
func renderFailures(res *Result) ([]byte, error) {
	names, vals := failureBars(res)
	n := len(res.Variants)
	if n == 0 || len(names) == 0 {
		return nil, fmt.Errorf("nothing to plot")
	}
	const legW = 2.4 * vg.Inch // fits "failed_in_delivery_window"
	w := max(8*vg.Inch, vg.Length(n)*1.6*vg.Inch+legW)
	h := 4 * vg.Inch
	// The data area is about w - legW - 0.8in wide; n+0.2 category widths
	// fit in it (the axis is padded by half a category on each side plus
	// a little); the bars of a group take 80% of one.
	cat := (w - legW - 0.8*vg.Inch) / vg.Length(float64(n)+0.2)
	barW := cat * 0.8 / vg.Length(len(names))

	p, leg := newPlot("Failures per variant (median over valid runs)")
	p.Y.Label.Text = "requests"
	p.X.Tick.Label.Font = sans(11)
	ymax := 0.0
	for mi, name := range names {
		bars := make(plotter.Values, n)
		xys := make(plotter.XYs, n)
		labels := make([]string, n)
		for vi, v := range vals[mi] {
			xys[vi].X = float64(vi)
			switch {
			case len(res.Variants[vi].ValidMetrics()) == 0:
				labels[vi] = "—"
			case math.IsNaN(v):
				labels[vi] = "n/a"
			default:
				bars[vi], xys[vi].Y = v, v
				labels[vi] = FormatNumber(KindCount, v)
				ymax = math.Max(ymax, v)
			}
		}
		bc, err := plotter.NewBarChart(bars, barW)
		if err != nil {
			return nil, err
		}
		bc.Color = failureColors[mi%len(failureColors)]
		bc.LineStyle.Width = 0
		bc.Offset = (vg.Length(mi) - vg.Length(len(names)-1)/2) * barW
		p.Add(bc)
		leg.Add(name, bc)
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return nil, err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].XAlign = draw.XCenter
			lab.TextStyle[i].Font = sans(9)
		}
		lab.Offset = vg.Point{X: bc.Offset, Y: vg.Points(2)}
		p.Add(lab)
	}
	var xs []string
	for _, v := range res.Variants {
		xs = append(xs, v.Label)
	}
	p.NominalX(xs...)
	p.X.Min, p.X.Max = -0.6, float64(n)-0.4
	p.Y.Min, p.Y.Max = 0, math.Max(ymax*1.12, 1)
	return renderPNG(w, h, func(c draw.Canvas) error {
		p.Draw(draw.Crop(c, 0, -legW, 0, 0))
		leg.YOffs = -vg.Points(30)
		leg.Draw(draw.Crop(c, w-legW+vg.Points(10), 0, 0, 0))
		return nil
	})
}

// variantColors are every plot's variant colours (Okabe–Ito), in variant
// order; line dashes tell variants apart past the seventh.
var variantColors = []color.RGBA{rgb(0x0072B2), rgb(0xD55E00), rgb(0x009E73), rgb(0xCC79A7), rgb(0xE69F00), rgb(0x56B4E9), rgb(0x000000)}

// variantLineStyle is the line of variant i.
func variantLineStyle(i int) draw.LineStyle {
	s := draw.LineStyle{Color: variantColors[i%len(variantColors)], Width: vg.Points(1.5)}
	if i >= len(variantColors) {
		s.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return s
}
