package websockets

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/shutdownlab/shutdownlab/report/plotkit"
)

// renderWSLines draws step lines, one per series, with an optional
// horizontal capacity line, the legend in a column on the right.
func renderWSLines(d wsPlotData, title, xLabel, yLabel string) ([]byte, error) {
	if len(d.Series) == 0 {
		return nil, fmt.Errorf("nothing to plot")
	}
	if len(d.Notes) > 0 {
		title += "\n" + strings.Join(d.Notes, "; ") // a line of its own: one line of it all overflowed the canvas
	}
	p, leg := plotkit.NewPlot(title)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	for i, s := range d.Series {
		if len(s.Points) == 0 {
			continue
		}
		l, err := plotter.NewLine(plotkit.Points(s.Points))
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", s.Label, err)
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = plotkit.VariantLineStyle(i)
		p.Add(l)
		leg.Add(s.Label, l)
		for _, pt := range s.Points {
			xmin, xmax, ymax = math.Min(xmin, pt.X), math.Max(xmax, pt.X), math.Max(ymax, pt.Y)
		}
	}
	if math.IsInf(xmin, 1) {
		return nil, fmt.Errorf("no points")
	}
	if d.Capacity > 0 {
		c := &plotkit.HLine{Y: d.Capacity, Style: draw.LineStyle{Color: plotkit.RGB(0x7F0000), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}}
		p.Add(c)
		leg.Add(fmt.Sprintf("capacity %s / 100 ms", strconv.FormatFloat(d.Capacity, 'f', -1, 64)), c)
		ymax = math.Max(ymax, d.Capacity)
	}
	t0 := &plotkit.VLine{X: 0, Style: plotkit.ActionLine}
	p.Add(t0)
	leg.Add("t0 action sent", t0)
	xmin, xmax = math.Min(xmin, 0), math.Max(xmax, 0)
	p.X.Min, p.X.Max = xmin, xmax+math.Max(0.02*(xmax-xmin), 0.01)
	p.Y.Min, p.Y.Max = 0, math.Max(ymax*1.08, 1)
	// The legend column grows to fit the longest variant label (the
	// canvas grows with it, the data area keeps its size).
	legW := plotkit.LegendWidth
	for _, s := range d.Series {
		legW = max(legW, leg.TextStyle.Width(s.Label)+leg.ThumbnailWidth+vg.Points(36))
	}
	legW = min(legW, 6*vg.Inch)
	w := plotkit.Width - plotkit.LegendWidth + legW
	return plotkit.RenderPNG(w, plotkit.Height, func(c draw.Canvas) error {
		p.Draw(draw.Crop(c, 0, -legW, 0, 0))
		leg.YOffs = -vg.Points(40)
		leg.Draw(draw.Crop(c, w-legW+vg.Points(10), 0, 0, 0))
		return nil
	})
}

// renderWSHandshakes draws ws_handshakes.png.
func renderWSHandshakes(d wsPlotData, scenario string) ([]byte, error) {
	return renderWSLines(d, scenario+" · handshakes the clients started per 100 ms\nfirst valid run of each variant; every attempt, any outcome",
		"s after t0 (action sent)", "handshakes / 100 ms")
}

// renderWSCloses draws ws_closes.png.
func renderWSCloses(d wsPlotData, scenario string) ([]byte, error) {
	return renderWSLines(d, scenario+" · connections the server ended, by time after t0\nfirst valid run of each variant; closes the client did not start",
		"ms after t0 (action sent)", "closes so far")
}
