package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
)

var nan = math.NaN()

// seriesStyles are the glyphs of the latency series (Okabe–Ito colours,
// readable with colour-blindness; failures also differ by shape and are
// larger than ok points).
var seriesStyles = map[string]draw.GlyphStyle{
	seriesOK:                    {Color: plotkit.RGB(0x56B4E9), Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}},
	seriesHTTP5xx:               {Color: plotkit.RGB(0xE69F00), Radius: vg.Points(3), Shape: draw.TriangleGlyph{}},
	seriesHTTPOther:             {Color: plotkit.RGB(0xCC79A7), Radius: vg.Points(3), Shape: draw.PyramidGlyph{}},
	string(record.ClassRefused): {Color: plotkit.RGB(0xD55E00), Radius: vg.Points(3), Shape: draw.CrossGlyph{}},
	string(record.ClassReset):   {Color: plotkit.RGB(0x009E73), Radius: vg.Points(3), Shape: draw.SquareGlyph{}},
	string(record.ClassEOF):     {Color: plotkit.RGB(0x0072B2), Radius: vg.Points(3), Shape: draw.RingGlyph{}},
	string(record.ClassTimeout): {Color: plotkit.RGB(0x000000), Radius: vg.Points(3), Shape: draw.PlusGlyph{}},
	string(record.ClassAborted): {Color: plotkit.RGB(0x8C7A00), Radius: vg.Points(3), Shape: draw.CircleGlyph{}},
	seriesUnknown:               {Color: plotkit.RGB(0x999999), Radius: vg.Points(3), Shape: draw.BoxGlyph{}},
}

// markerStyles are the vertical lines of the latency plot.
var markerStyles = map[string]draw.LineStyle{
	plotkit.MarkerAction:       plotkit.ActionLine,
	plotkit.MarkerSignal:       plotkit.SignalLine,
	report.PhaseReadyFalse:     {Color: plotkit.RGB(0x009E73), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}},
	report.PhaseListenerClosed: {Color: plotkit.RGB(0xCC79A7), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)}},
	report.PhaseDrained:        {Color: plotkit.RGB(0x0072B2), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(4), vg.Points(4)}},
	report.PhaseDeadline:       {Color: plotkit.RGB(0xE69F00), Width: vg.Points(2), Dashes: []vg.Length{vg.Points(8), vg.Points(3)}},
	report.PhaseExit:           plotkit.ExitLine,
	report.PhaseDeregAcked:     {Color: plotkit.RGB(0x56B4E9), Width: vg.Points(2), Dashes: []vg.Length{vg.Points(1), vg.Points(3)}},
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
	p, leg := plotkit.NewPlot(title + "\n" + latencySubtitle(d))
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
		sc, err := plotter.NewScatter(plotkit.Points(s.Points))
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
		vl := &plotkit.VLine{X: m.X, Style: markerStyles[m.Name]}
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

	return plotkit.RenderPNG(plotkit.Width, plotkit.Height, func(c draw.Canvas) error {
		p.Draw(draw.Crop(c, 0, -plotkit.LegendWidth, 0, 0))
		leg.YOffs = -vg.Points(40)
		leg.Draw(draw.Crop(c, plotkit.Width-plotkit.LegendWidth+vg.Points(10), 0, 0, 0))
		return nil
	})
}

// failureColors are the bar colours of failures.png, by metric position.
var failureColors = []color.RGBA{plotkit.RGB(0xE69F00), plotkit.RGB(0xD55E00), plotkit.RGB(0x7F0000), plotkit.RGB(0x0072B2)}

// renderFailures draws failures.png: per variant, one bar per metric of
// failureMetrics (median over valid runs), its value printed above it.
func renderFailures(res *report.Result) ([]byte, error) {
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

	p, leg := plotkit.NewPlot("Failures per variant (median over valid runs)")
	p.Y.Label.Text = "requests"
	p.X.Tick.Label.Font = plotkit.Sans(11)
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
				labels[vi] = report.FormatNumber(report.KindCount, v)
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
			lab.TextStyle[i].Font = plotkit.Sans(9)
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
	return plotkit.RenderPNG(w, h, func(c draw.Canvas) error {
		p.Draw(draw.Crop(c, 0, -legW, 0, 0))
		leg.YOffs = -vg.Points(30)
		leg.Draw(draw.Crop(c, w-legW+vg.Points(10), 0, 0, 0))
		return nil
	})
}
