package deregistration

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
)

// PlotFile is the deregistration curve plot, once per result whose
// rolls deregistered the replica from the proxy.
const PlotFile = "deregistration.png"

// deregLine is one pre-stop's curve: mean failed requests (y) per
// deregistration delay (x, ms), ascending x.
type deregLine struct {
	PreStop string
	Points  plotter.XYs
}

// deregLines groups rows with valid runs by pre-stop (ascending), each
// line's points by delay. Pure.
func deregLines(rows []Row) []deregLine {
	var pres []string
	for _, r := range rows {
		if r.Valid > 0 && !slices.Contains(pres, r.PreStop) {
			pres = append(pres, r.PreStop)
		}
	}
	slices.SortStableFunc(pres, func(a, b string) int {
		return cmp.Compare(Row{PreStop: a}.PreStopMs(), Row{PreStop: b}.PreStopMs())
	})
	var lines []deregLine
	for _, p := range pres {
		l := deregLine{PreStop: p}
		for _, r := range rows {
			if r.Valid > 0 && r.PreStop == p {
				l.Points = append(l.Points, plotter.XY{X: r.DelayMs, Y: r.MeanFailed()})
			}
		}
		slices.SortStableFunc(l.Points, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		lines = append(lines, l)
	}
	return lines
}

// Plots draws PlotFile into dir when the result has deregistration
// rows; a failure becomes a note, as for every plot.
func (s *Section) Plots(dir string, res *report.Result) []string {
	rows := Rows(res)
	if len(rows) == 0 {
		return nil
	}
	b, err := renderDereg(deregLines(rows), res.Scenario, wordingOf(rows))
	if err == nil {
		err = resultdir.WriteFileAtomic(filepath.Join(dir, PlotFile), b)
	}
	if err != nil {
		return []string{fmt.Sprintf("%s not drawn: %v", PlotFile, err)}
	}
	s.plot = PlotFile
	return nil
}

// renderDereg draws failed requests (mean over valid runs) against the
// deregistration delay, one line with points per pre-stop.
func renderDereg(lines []deregLine, scenario string, wd wording) ([]byte, error) {
	if len(lines) == 0 {
		return nil, fmt.Errorf("no variant with valid runs")
	}
	p, leg := plotkit.NewPlot(scenario + " · failed requests vs deregistration delay\nmean over valid runs; one line per " + wd.preStop)
	p.X.Label.Text, p.Y.Label.Text = "deregister_after (ms after the "+wd.from()+")", "failed requests"
	xmax, ymax := 0.0, 0.0
	for i, l := range lines {
		line, pts, err := plotter.NewLinePoints(l.Points)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", wd.preStop, l.PreStop, err)
		}
		line.LineStyle = plotkit.VariantLineStyle(i)
		pts.GlyphStyle = draw.GlyphStyle{Color: plotkit.VariantColors[i%len(plotkit.VariantColors)], Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(line, pts)
		name := wd.preStop + " unset"
		if l.PreStop != "" {
			name = wd.preStop + " " + l.PreStop
		}
		leg.Add(name, line, pts)
		for _, pt := range l.Points {
			xmax, ymax = math.Max(xmax, pt.X), math.Max(ymax, pt.Y)
		}
	}
	p.X.Min, p.X.Max = 0, math.Max(xmax*1.05, 1)
	p.Y.Min, p.Y.Max = 0, math.Max(ymax*1.08, 1)
	w := plotkit.Width
	return plotkit.RenderPNG(w, plotkit.Height, func(c draw.Canvas) error {
		p.Draw(draw.Crop(c, 0, -plotkit.LegendWidth, 0, 0))
		leg.YOffs = -vg.Points(40)
		leg.Draw(draw.Crop(c, w-plotkit.LegendWidth+vg.Points(10), 0, 0, 0))
		return nil
	})
}
