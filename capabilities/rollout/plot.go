package rollout

import (
	"fmt"
	"image/color"
	"math"
	"path"
	"path/filepath"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
)

// PlotFile is the old-vs-new plot of a run that rolled a Swarm
// service, in its run directory.
const PlotFile = "rollout.png"

// rolloutBin is the width of one bin of the rollout plot.
const rolloutBin = 250_000_000 // ns

// variantRollout is what the report shows of one variant's rollout: its first
// valid run (else its first run), the requests each task served, and the
// plot.
type variantRollout struct {
	// Variant and Run name the run; Plot is the plot's path relative to
	// the result directory ("" when not drawn).
	Variant string
	Run     int
	Plot    string
	// Meta is the run's record; OK and Failed count its requests by the
	// task that served them (task id), Unattributed the failed ones that
	// name no task.
	Meta         record.Meta
	OK, Failed   map[string]int
	Unattributed int
}

// rolloutSeries are the plot's counts per bin since the update.
type rolloutSeries struct {
	Old, New, Failed plotter.XYs
}

// tally attributes the requests to tasks and bins them. Pure.
func tally(meta record.Meta, reqs func(func(*record.Request))) (variantRollout, rolloutSeries) {
	r := meta.Rollout()
	out := variantRollout{Meta: meta, OK: map[string]int{}, Failed: map[string]int{}}
	byUp := map[string]*record.SwarmTask{}
	for i := range r.Tasks {
		if t := &r.Tasks[i]; t.Upstream != "" {
			byUp[t.Upstream] = t
		}
	}
	bins := map[int64][3]int{}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	reqs(func(q *record.Request) {
		if q.Class == record.ClassNotSent {
			return
		}
		t := byUp[q.Upstream]
		b := (q.Start - r.SentNs) / rolloutBin
		if q.Start < r.SentNs {
			b--
		}
		lo, hi = min(lo, b), max(hi, b)
		c := bins[b]
		switch {
		case q.Class.Failed():
			c[2]++
			if t == nil {
				out.Unattributed++
			} else {
				out.Failed[t.ID]++
			}
		case t != nil && t.Generation == record.GenerationOld:
			c[0]++
			out.OK[t.ID]++
		case t != nil:
			c[1]++
			out.OK[t.ID]++
		}
		bins[b] = c
	})
	var s rolloutSeries
	for b := lo; b <= hi && lo <= hi; b++ {
		x := float64(b*rolloutBin) / 1e9
		c := bins[b]
		s.Old = append(s.Old, plotter.XY{X: x, Y: float64(c[0])})
		s.New = append(s.New, plotter.XY{X: x, Y: float64(c[1])})
		s.Failed = append(s.Failed, plotter.XY{X: x, Y: float64(c[2])})
	}
	return out, s
}

// Plots draws PlotFile for each variant's first valid run (else
// its first run) that rolled a Swarm service, and keeps the per-task
// counts for the section.
func (s *Section) Plots(dir string, res *report.Result) []string {
	s.plotted = true
	var notes []string
	for i := range res.Variants {
		v := &res.Variants[i]
		r := rolloutRunOf(v)
		if r == nil {
			continue
		}
		rd := filepath.Join(dir, filepath.FromSlash(report.RunPath(v, r)))
		var all []record.Request
		err := report.ReadRunRecords(rd, func(q *record.Request) error {
			all = append(all, *q)
			return nil
		}, nil)
		rr, series := tally(r.Meta, func(f func(*record.Request)) {
			for j := range all {
				f(&all[j])
			}
		})
		rr.Variant, rr.Run = v.Label, r.Meta.Run
		if err == nil {
			var b []byte
			if b, err = renderRollout(series, r.Meta, res.Scenario+" · "+v.Label); err == nil {
				err = resultdir.WriteFileAtomic(filepath.Join(rd, PlotFile), b)
			}
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s run %d: %s not drawn: %v", v.Label, r.Meta.Run, PlotFile, err))
		} else {
			rr.Plot = path.Join(report.RunPath(v, r), PlotFile)
		}
		s.runs = append(s.runs, rr)
	}
	return notes
}

// rolloutRunOf is a variant's first valid run with a sent rollout, else
// its first run with one (nil: none).
func rolloutRunOf(v *report.Variant) *report.Run {
	var first *report.Run
	for j := range v.Runs {
		r := &v.Runs[j]
		if r.Meta.Rollout() == nil || r.Meta.Rollout().SentNs == 0 {
			continue
		}
		if r.Valid {
			return r
		}
		if first == nil {
			first = r
		}
	}
	return first
}

// renderRollout draws requests per bin served by old and new tasks, and
// failed, against seconds since the update, with the old tasks' stop
// signals as dashed vertical lines.
func renderRollout(s rolloutSeries, meta record.Meta, title string) ([]byte, error) {
	if len(s.Old) == 0 {
		return nil, fmt.Errorf("no request")
	}
	p, leg := plotkit.NewPlot(title + "\nrequests started per 250 ms, by the task generation that served them")
	p.X.Label.Text, p.Y.Label.Text = "seconds since the service update was sent", "requests"
	ymax := 1.0
	for k, xy := range []plotter.XYs{s.Old, s.New, s.Failed} {
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.LineStyle = plotkit.VariantLineStyle(k)
		p.Add(l)
		leg.Add([]string{"served by old tasks", "served by new tasks", "failed"}[k], l)
		for _, pt := range xy {
			ymax = math.Max(ymax, pt.Y)
		}
	}
	ymax *= 1.08
	marks := []float64{0}
	for _, t := range meta.Rollout().Tasks {
		if t.Generation == record.GenerationOld && t.SignalNs > 0 {
			marks = append(marks, float64(t.SignalNs-meta.Rollout().SentNs)/1e9)
		}
	}
	for k, x := range marks {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: ymax}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		if k == 0 {
			l.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
		}
		p.Add(l)
		switch k {
		case 0:
			leg.Add("update sent", l)
		case 1:
			leg.Add("old task's stop signal", l)
		}
	}
	p.Y.Min, p.Y.Max = 0, ymax
	w := plotkit.Width
	return plotkit.RenderPNG(w, plotkit.Height, func(c draw.Canvas) error {
		p.Draw(draw.Crop(c, 0, -plotkit.LegendWidth, 0, 0))
		leg.YOffs = -vg.Points(40)
		leg.Draw(draw.Crop(c, w-plotkit.LegendWidth+vg.Points(10), 0, 0, 0))
		return nil
	})
}
