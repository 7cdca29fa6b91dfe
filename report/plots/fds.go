package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
)

// fdSeries is one replica's open-fd total over time on a latency plot: X
// seconds after the load start, Y the process tree's fds at that tick.
type fdSeries struct {
	Replica string
	Points  []plotkit.Point
}

// fdSeriesOf turns a run's resource samples into one fd series per
// replica (in name order), on the latency plot's time axis (base: the
// load start in Unix ns).
func fdSeriesOf(samples []record.ResourceSample, base int64) []fdSeries {
	var names []string
	for _, s := range samples {
		if !slices.Contains(names, s.Replica) {
			names = append(names, s.Replica)
		}
	}
	slices.Sort(names)
	var out []fdSeries
	for _, name := range names {
		fs := fdSeries{Replica: name}
		for _, k := range record.ResourceTicks(samples, name) {
			fs.Points = append(fs.Points, plotkit.Point{X: float64(k.TimeNs-base) / 1e9, Y: float64(k.FDs)})
		}
		out = append(out, fs)
	}
	return out
}

// fdPanelH is the height of the fd panel under the latency plot.
var fdPanelH = 2.4 * vg.Inch

// fdColors are the replicas' line colours (Okabe–Ito), by position.
var fdColors = []color.RGBA{plotkit.RGB(0x0072B2), plotkit.RGB(0xE69F00), plotkit.RGB(0x009E73), plotkit.RGB(0xCC79A7), plotkit.RGB(0x56B4E9), plotkit.RGB(0xD55E00)}

// fdRange widens [xmin, xmax] to the fd series' times.
func fdRange(fds []fdSeries, xmin, xmax float64) (float64, float64) {
	for _, s := range fds {
		for _, pt := range s.Points {
			xmin, xmax = math.Min(xmin, pt.X), math.Max(xmax, pt.X)
		}
	}
	return xmin, xmax
}

// fdPlot is the fd panel: one line per replica, the latency plot's
// markers (action, signal, exit) as vertical lines, the same x range.
func fdPlot(d latencyData, xmin, xmax float64) (*plot.Plot, *plot.Legend, error) {
	p, leg := plotkit.NewPlot("")
	p.X.Label.Text = "time (s after load start)"
	p.Y.Label.Text = "open fds (process tree)"
	ymax := 0.0
	for i, s := range d.FDs {
		l, err := plotter.NewLine(plotkit.Points(s.Points))
		if err != nil {
			return nil, nil, fmt.Errorf("fd series %s: %w", s.Replica, err)
		}
		l.LineStyle = draw.LineStyle{Color: fdColors[i%len(fdColors)], Width: vg.Points(1.5)}
		p.Add(l)
		leg.Add(fmt.Sprintf("fds %s", s.Replica), l)
		for _, pt := range s.Points {
			ymax = math.Max(ymax, pt.Y)
		}
	}
	for _, m := range d.Markers {
		p.Add(&plotkit.VLine{X: m.X, Style: markerStyles[m.Name]})
	}
	p.X.Min, p.X.Max = xmin, xmax
	p.Y.Min, p.Y.Max = 0, math.Max(ymax*1.1, 1)
	return p, leg, nil
}

// renderWithFDs draws the latency plot p (legend leg) above the fd panel,
// their data areas aligned on the same time axis.
func renderWithFDs(p *plot.Plot, leg *plot.Legend, d latencyData) ([]byte, error) {
	fp, fleg, err := fdPlot(d, p.X.Min, p.X.Max)
	if err != nil {
		return nil, err
	}
	h := plotkit.Height + fdPanelH
	return plotkit.RenderPNG(plotkit.Width, h, func(c draw.Canvas) error {
		area := draw.Crop(c, 0, -plotkit.LegendWidth, 0, 0)
		// Align gives both plots the same data-area columns; its rows are
		// equal, so only its x extents are used.
		cs := plot.Align([][]*plot.Plot{{p}, {fp}}, draw.Tiles{Rows: 2, Cols: 1}, area)
		top, bottom := area, area
		top.Min.Y = area.Min.Y + fdPanelH
		top.Min.X, top.Max.X = cs[0][0].Min.X, cs[0][0].Max.X
		bottom.Max.Y = area.Min.Y + fdPanelH
		bottom.Min.X, bottom.Max.X = cs[1][0].Min.X, cs[1][0].Max.X
		p.Draw(top)
		fp.Draw(bottom)
		legendX := plotkit.Width - plotkit.LegendWidth + vg.Points(10)
		leg.YOffs = -vg.Points(40)
		leg.Draw(draw.Crop(c, legendX, 0, fdPanelH, 0))
		fleg.YOffs = -vg.Points(10)
		fleg.Draw(draw.Crop(c, legendX, 0, 0, -(h - fdPanelH)))
		return nil
	})
}
