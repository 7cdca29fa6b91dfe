package queuejobs

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
)

// jobsMarkerStyles are the job timeline's vertical lines: the action, the
// signal and the exit as on every time plot, and its own.
var jobsMarkerStyles = map[string]draw.LineStyle{
	plotkit.MarkerAction: plotkit.ActionLine,
	plotkit.MarkerSignal: plotkit.SignalLine,
	report.PhaseExit:     plotkit.ExitLine,
	jobsMarkAgain:        {Color: plotkit.RGB(0xD55E00), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}},
	jobsMarkGrace:        {Color: plotkit.RGB(0x7F0000), Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(8), vg.Points(3)}},
}

// The job timeline's outcome glyphs.
var (
	jobsStoppedGlyph   = draw.GlyphStyle{Color: plotkit.RGB(0xE69F00), Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}
	jobsCompletedGlyph = draw.GlyphStyle{Color: plotkit.RGB(0x000000), Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	jobsFailedGlyph    = draw.GlyphStyle{Color: plotkit.RGB(0xD55E00), Radius: vg.Points(4), Shape: draw.CrossGlyph{}}
	jobsResumedGlyph   = draw.GlyphStyle{Color: plotkit.RGB(0x009E73), Radius: vg.Points(4), Shape: draw.BoxGlyph{}}
	jobsStepStyle      = draw.LineStyle{Color: plotkit.RGB(0x000000), Width: vg.Points(1)}
	jobsAgainStyle     = draw.LineStyle{Color: plotkit.RGB(0xCC79A7), Width: vg.Points(2.5)}
)

// jobsReplicaColor is replica i's bar colour (the ws plots' palette;
// grey for an unknown replica).
func jobsReplicaColor(i int) color.Color {
	if i < 0 {
		return plotkit.RGB(0x999999)
	}
	return plotkit.VariantColors[i%len(plotkit.VariantColors)]
}

// jobsOpenColor is the bar colour of a run that never ended.
var jobsOpenColor = plotkit.RGB(0xCCCCCC)

// jobBar is one run's bar on row Y.
type jobBar struct {
	X0, X1, Y float64
}

// jobBars draws bars of one colour, 0.5 row high.
type jobBars struct {
	Bars  []jobBar
	Color color.Color
}

// Plot implements plot.Plotter.
func (b *jobBars) Plot(c draw.Canvas, p *plot.Plot) {
	for _, r := range b.Bars {
		x0, x1 := c.X(p.X.Norm(r.X0)), c.X(p.X.Norm(r.X1))
		y0, y1 := c.Y(p.Y.Norm(r.Y-0.25)), c.Y(p.Y.Norm(r.Y+0.25))
		if x1-x0 < vg.Points(1) {
			x1 = x0 + vg.Points(1)
		}
		c.FillPolygon(b.Color, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
	}
}

// Thumbnail implements plot.Thumbnailer.
func (b *jobBars) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	h := (r.Max.Y - r.Min.Y) / 4
	c.FillPolygon(b.Color, []vg.Point{{X: r.Min.X, Y: r.Min.Y + h}, {X: r.Max.X, Y: r.Min.Y + h}, {X: r.Max.X, Y: r.Max.Y - h}, {X: r.Min.X, Y: r.Max.Y - h}})
}

// jobTicks draws a short vertical tick per point (a step applied),
// Half a row above and below it.
type jobTicks struct {
	Pts   plotter.XYs
	Style draw.LineStyle
	Half  float64
}

// Plot implements plot.Plotter.
func (t *jobTicks) Plot(c draw.Canvas, p *plot.Plot) {
	for _, pt := range t.Pts {
		x := c.X(p.X.Norm(pt.X))
		if x < c.Min.X || x > c.Max.X {
			continue
		}
		c.StrokeLine2(t.Style, x, c.Y(p.Y.Norm(pt.Y-t.Half)), x, c.Y(p.Y.Norm(pt.Y+t.Half)))
	}
}

// Thumbnail implements plot.Thumbnailer: a vertical tick.
func (t *jobTicks) Thumbnail(c *draw.Canvas) {
	x := c.Center().X
	c.StrokeLine2(t.Style, x, c.Min.Y, x, c.Max.Y)
}

// jobsLayers are a timeline's plotters by kind, before drawing.
type jobsLayers struct {
	bars                                map[int]*jobBars // by replica; -1 unknown
	open                                *jobBars
	steps, again                        plotter.XYs
	stopped, completed, failed, resumed plotter.XYs
	xmin, xmax                          float64
}

// layJobs sorts d's runs into layers; row i is drawn at y = n-1-i (the
// first job on top).
func layJobs(d jobsPlotData) *jobsLayers {
	l := &jobsLayers{bars: map[int]*jobBars{}, open: &jobBars{Color: jobsOpenColor}, xmin: math.Inf(1), xmax: math.Inf(-1)}
	n := len(d.Rows)
	for i, row := range d.Rows {
		y := float64(n - 1 - i)
		for _, r := range row.Runs {
			bar := jobBar{X0: r.Start, X1: r.End, Y: y}
			if r.Open {
				l.open.Bars = append(l.open.Bars, bar)
			} else {
				if l.bars[r.Replica] == nil {
					l.bars[r.Replica] = &jobBars{Color: jobsReplicaColor(r.Replica)}
				}
				l.bars[r.Replica].Bars = append(l.bars[r.Replica].Bars, bar)
			}
			for _, s := range r.Steps {
				l.steps = append(l.steps, plotter.XY{X: s, Y: y})
			}
			for _, s := range r.Again {
				l.again = append(l.again, plotter.XY{X: s, Y: y})
			}
			switch {
			case r.Open:
			case r.Outcome == "completed":
				l.completed = append(l.completed, plotter.XY{X: r.End, Y: y})
			case isStopped(r.Outcome):
				l.stopped = append(l.stopped, plotter.XY{X: r.End, Y: y})
			default:
				l.failed = append(l.failed, plotter.XY{X: r.End, Y: y})
			}
			if r.Resumed {
				l.resumed = append(l.resumed, plotter.XY{X: r.Start, Y: y})
			}
			l.xmin, l.xmax = math.Min(l.xmin, r.Start), math.Max(l.xmax, r.End)
		}
	}
	return l
}

// jobsTitle is the timeline's title: what is drawn, and what was left out.
func jobsTitle(d jobsPlotData, title string) string {
	acted := "the acted-on replica"
	if d.Acted >= 0 && d.Acted < len(d.Replicas) {
		acted = d.Replicas[d.Acted]
	}
	s := fmt.Sprintf("%s\njobs %s ran: one row per job, one bar per run (by replica)", title, acted)
	if len(d.Rows) < d.Total {
		s += fmt.Sprintf("; the first %d of %d jobs", len(d.Rows), d.Total)
	}
	return s
}

// renderJobs draws the job timeline of one run.
func renderJobs(d jobsPlotData, title string) ([]byte, error) {
	if len(d.Rows) == 0 {
		return nil, fmt.Errorf("no job to draw")
	}
	p, leg := plotkit.NewPlot(jobsTitle(d, title))
	p.X.Label.Text = d.Origin
	l := layJobs(d)
	for i := -1; i < len(d.Replicas); i++ {
		if b := l.bars[i]; b != nil {
			p.Add(b)
			name := "run on an unknown replica"
			if i >= 0 {
				name = "run on " + d.Replicas[i]
			}
			leg.Add(name, b)
		}
	}
	if len(l.open.Bars) > 0 {
		p.Add(l.open)
		leg.Add("run that never ended (to its replica's exit)", l.open)
	}
	for _, t := range []struct {
		pts   plotter.XYs
		style draw.LineStyle
		half  float64
		name  string
	}{{l.steps, jobsStepStyle, 0.35, "step applied"}, {l.again, jobsAgainStyle, 0.45, "step applied again"}} {
		if len(t.pts) > 0 {
			tk := &jobTicks{Pts: t.pts, Style: t.style, Half: t.half}
			p.Add(tk)
			leg.Add(t.name, tk)
		}
	}
	for _, g := range []struct {
		pts   plotter.XYs
		style draw.GlyphStyle
		name  string
	}{{l.stopped, jobsStoppedGlyph, "stopped at a checkpoint, handed back"}, {l.failed, jobsFailedGlyph, "run failed"},
		{l.resumed, jobsResumedGlyph, "resumed on another replica"}, {l.completed, jobsCompletedGlyph, "completed"}} {
		if len(g.pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(g.pts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g.name, err)
		}
		sc.GlyphStyle = g.style
		p.Add(sc)
		leg.Add(g.name, sc)
	}
	for _, m := range d.Markers {
		vl := &plotkit.VLine{X: m.X, Style: jobsMarkerStyles[m.Name]}
		p.Add(vl)
		leg.Add(m.Label, vl)
		l.xmin, l.xmax = math.Min(l.xmin, m.X), math.Max(l.xmax, m.X)
	}
	names := make([]string, len(d.Rows))
	for i, row := range d.Rows {
		names[len(d.Rows)-1-i] = fmt.Sprintf("job %d", row.ID)
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(len(d.Rows))-0.4
	p.X.Min, p.X.Max = l.xmin-math.Max(0.02*(l.xmax-l.xmin), 0.01), l.xmax+math.Max(0.02*(l.xmax-l.xmin), 0.01)
	h := min(max(plotkit.Height, vg.Length(len(d.Rows))*0.24*vg.Inch+1.8*vg.Inch), 14*vg.Inch)
	legW := plotkit.LegendWidth + 0.3*vg.Inch // fits "stopped at a checkpoint, handed back"
	w := plotkit.Width - plotkit.LegendWidth + legW
	return plotkit.RenderPNG(w, h, func(c draw.Canvas) error {
		p.Draw(draw.Crop(c, vg.Points(6), -legW, 0, 0)) // room for the row labels
		leg.YOffs = -vg.Points(40)
		leg.Draw(draw.Crop(c, w-legW+vg.Points(10), 0, 0, 0))
		return nil
	})
}
