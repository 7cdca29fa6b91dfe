// Package plots draws the core plots of a report: failures.png (per
// variant, the median failures of each kind over its valid runs) and each
// run's latency.png (every request's latency by its start, the shutdown's
// moments as vertical lines, and the replicas' open file descriptors
// beneath when the run was sampled). Data here, drawing in render.go and
// fds.go; sizes, fonts and colours are plotkit's.
package plots

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// MaxLatencyPoints bounds the points of one latency plot; above it the ok
// points are thinned to every k-th (in start order) while every other
// request is kept.
const MaxLatencyPoints = 20000

// Write draws failures.png into dir and latency.png into every run
// directory, reading each run's records again, one run at a time, and
// returns them for report.md to link. It never fails: a plot that cannot
// be drawn or written is left out and a note says why.
func Write(dir string, res *report.Result) *report.PlotSet {
	ps := &report.PlotSet{Latency: map[string]string{}}
	if b, err := renderFailures(res); err != nil {
		ps.Notes = append(ps.Notes, fmt.Sprintf("%s not drawn: %v", resultdir.FailuresPlotFile, err))
	} else if err := resultdir.WriteFileAtomic(filepath.Join(dir, resultdir.FailuresPlotFile), b); err != nil {
		ps.Notes = append(ps.Notes, fmt.Sprintf("%s not written: %v", resultdir.FailuresPlotFile, err))
	} else {
		ps.Failures = resultdir.FailuresPlotFile
	}
	for i := range res.Variants {
		v := &res.Variants[i]
		for j := range v.Runs {
			r := &v.Runs[j]
			rel := path.Join(report.RunPath(v, r), resultdir.LatencyPlotFile)
			if err := writeLatencyPlot(filepath.Join(dir, filepath.FromSlash(rel)), res.Scenario, v, r); err != nil {
				ps.Notes = append(ps.Notes, fmt.Sprintf("%s run %d: latency plot not drawn: %v", v.Label, r.Meta.Run, err))
				continue
			}
			ps.Latency[report.RunPath(v, r)] = rel
		}
	}
	return ps
}

// writeLatencyPlot streams one run's records into a latencyBuilder (a few
// bytes per request, not whole records) and writes its plot to name.
func writeLatencyPlot(name, scenario string, v *report.Variant, r *report.Run) error {
	lb := newLatencyBuilder(r.Meta)
	err := report.ReadRunRecords(filepath.Dir(name), func(q *record.Request) error {
		lb.add(q)
		return nil
	}, nil)
	if err != nil {
		return err
	}
	d := lb.finish(MaxLatencyPoints)
	samples, err := report.ReadResourceSamples(filepath.Dir(name))
	if err != nil {
		return err
	}
	d.FDs = fdSeriesOf(samples, loadStart(r.Meta, lb.pts))
	b, err := renderLatency(d, fmt.Sprintf("%s · %s · run %d", scenario, v.Label, r.Meta.Run))
	if err != nil {
		return err
	}
	return resultdir.WriteFileAtomic(name, b)
}

// Series keys of a latency plot, in legend order: the outcome classes, with
// http_error split into 5xx and other statuses.
const (
	seriesOK        = "ok"
	seriesHTTP5xx   = "http_5xx"
	seriesHTTPOther = "http_other"
	seriesUnknown   = "unknown"
)

// seriesOrder is the legend (and drawing) order of the latency series.
var seriesOrder = []string{seriesOK, seriesHTTP5xx, seriesHTTPOther, string(record.ClassRefused),
	string(record.ClassReset), string(record.ClassEOF), string(record.ClassTimeout), string(record.ClassAborted), seriesUnknown}

// seriesKey is the latency-plot series of a request ("" for not_sent, which
// is not plotted: it never reached the wire).
func seriesKey(r *record.Request) string {
	switch r.Class {
	case record.ClassNotSent:
		return ""
	case record.ClassHTTPError:
		if r.Status >= 500 && r.Status <= 599 {
			return seriesHTTP5xx
		}
		return seriesHTTPOther
	}
	if slices.Contains(seriesOrder, string(r.Class)) {
		return string(r.Class)
	}
	return seriesUnknown
}

// latencySeries is the kept points of one series.
type latencySeries struct {
	Key string
	// Points are the requests: X the start in seconds after load start,
	// Y the latency in ms.
	Points []plotkit.Point
	// Total counts the series' requests before subsampling.
	Total int
}

// latencyData is everything a latency plot shows, before drawing.
type latencyData struct {
	Series  []latencySeries
	Markers []plotkit.Marker
	// Total counts plotted-class requests; Kept how many are drawn.
	Total, Kept int
	// NotSent counts the not_sent requests left out.
	NotSent int
	// Stride is k when only every k-th ok point is drawn, else 1.
	Stride int
	// NeverExited is true when an action fired and the acted-on replica
	// did not exit within the observation window.
	NeverExited bool
	// FDs are the replicas' open-fd totals over time (resource samples;
	// none: no fd panel is drawn).
	FDs []fdSeries
}

// latencyBuilder collects compact points while records stream by.
type latencyBuilder struct {
	meta    record.Meta
	pts     []rawPoint
	notSent int
}

type rawPoint struct {
	start, lat int64
	key        uint8 // index into seriesOrder
}

func newLatencyBuilder(meta record.Meta) *latencyBuilder { return &latencyBuilder{meta: meta} }

func (lb *latencyBuilder) add(r *record.Request) {
	k := seriesKey(r)
	if k == "" {
		lb.notSent++
		return
	}
	lb.pts = append(lb.pts, rawPoint{start: r.Start, lat: r.LatencyNs(), key: uint8(slices.Index(seriesOrder, k))})
}

// latencySeriesOf prepares the latency plot of one run from its records
// (see latencyBuilder.finish).
func latencySeriesOf(meta record.Meta, reqs []record.Request, maxPoints int) latencyData {
	lb := newLatencyBuilder(meta)
	for i := range reqs {
		lb.add(&reqs[i])
	}
	return lb.finish(maxPoints)
}

// finish sorts the points by start and, above maxPoints, keeps every
// non-ok point and every k-th ok point, with k the smallest stride that
// fits (at least a quarter of maxPoints stays for ok points). Deterministic
// for the same records in any order. X is relative to the load start
// (Meta.LoadStartNs, else the agent's, else the first request's start).
func (lb *latencyBuilder) finish(maxPoints int) latencyData {
	slices.SortFunc(lb.pts, func(a, b rawPoint) int {
		if a.start != b.start {
			return cmpInt64(a.start, b.start)
		}
		if a.key != b.key {
			return int(a.key) - int(b.key)
		}
		return cmpInt64(a.lat, b.lat)
	})
	d := latencyData{Total: len(lb.pts), NotSent: lb.notSent, Stride: 1}
	var ok int
	for _, p := range lb.pts {
		if p.key == 0 {
			ok++
		}
	}
	if len(lb.pts) > maxPoints && ok > 0 {
		budget := max(maxPoints-(len(lb.pts)-ok), maxPoints/4, 1)
		d.Stride = (ok + budget - 1) / budget
	}
	base := loadStart(lb.meta, lb.pts)
	series := make([]latencySeries, len(seriesOrder))
	var okIdx int
	for _, p := range lb.pts {
		s := &series[p.key]
		s.Total++
		if p.key == 0 {
			okIdx++
			if (okIdx-1)%d.Stride != 0 {
				continue
			}
		}
		s.Points = append(s.Points, plotkit.Point{X: float64(p.start-base) / 1e9, Y: float64(p.lat) / 1e6})
		d.Kept++
	}
	for i, s := range series {
		if s.Total > 0 {
			s.Key = seriesOrder[i]
			d.Series = append(d.Series, s)
		}
	}
	d.Markers = latencyMarkers(lb.meta, base)
	if tl := report.RunTimeline(lb.meta); tl.T0 != 0 && !tl.Exited {
		d.NeverExited = true
	}
	return d
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// loadStart is the x origin of a latency plot.
func loadStart(meta record.Meta, pts []rawPoint) int64 {
	switch {
	case meta.LoadStartNs > 0:
		return meta.LoadStartNs
	case meta.Agent != nil && meta.Agent.LoadStart > 0:
		return meta.Agent.LoadStart
	case len(pts) > 0:
		return pts[0].start
	}
	return 0
}

// latencyMarkers are the vertical lines of a latency plot: t₀ (action
// sent), t (shutdown.SignalTime, when it differs from t₀), and the acted-on
// replica's ready_false, listener_closed, drained, deadline and engine exit,
// and the proxy's acknowledgement of a deregistration. None without an
// action.
func latencyMarkers(meta record.Meta, base int64) []plotkit.Marker {
	tl := report.RunTimeline(meta)
	if tl.T0 == 0 {
		return nil
	}
	var out []plotkit.Marker
	mk := func(name, label string, at int64) {
		out = append(out, plotkit.Marker{Name: name, X: float64(at-base) / 1e9,
			Label: fmt.Sprintf("%s %s ms", label, shutdown.SignedMs(float64(at-tl.T0)/1e6))})
	}
	mk(plotkit.MarkerAction, "t0 action sent", tl.T0)
	if t, ref := shutdown.SignalTime(meta); t != tl.T0 {
		mk(plotkit.MarkerSignal, "t signal ("+ref+")", t)
	}
	for _, p := range []string{report.PhaseReadyFalse, report.PhaseListenerClosed, report.PhaseDrained, report.PhaseDeadline, report.PhaseExit, report.PhaseDeregAcked} {
		if at := tl.At[p]; at != 0 {
			label := p
			if p == report.PhaseExit {
				label = "exit (engine)"
			}
			mk(p, label, at)
		}
	}
	return out
}

// failureMetrics are the bars of failures.png, per variant.
// Failures after the acted-on replica exited are left out: on a direct
// topology they are refusals that say nothing about the service and would
// dwarf the difference between modes.
var failureMetrics = []string{"failed_while_running", "dropped_inflight", "failed_in_delivery_window", "idle_close_race"}

// failureBars returns the metrics of failureMetrics the catalog knows and,
// per metric, the median over each variant's valid runs (NaN when null or
// no valid run), in variant order.
func failureBars(res *report.Result) ([]string, [][]float64) {
	var ds []report.MetricDef
	var names []string
	for _, name := range failureMetrics {
		for _, d := range report.Defs() {
			if d.Name == name {
				ds = append(ds, d)
				names = append(names, name)
			}
		}
	}
	out := make([][]float64, len(ds))
	for i := range out {
		out[i] = make([]float64, len(res.Variants))
	}
	for vi := range res.Variants {
		for mi, s := range res.Variants[vi].Spreads(ds) {
			out[mi][vi] = nan
			if s.Median != nil {
				out[mi][vi] = *s.Median
			}
		}
	}
	return names, out
}
