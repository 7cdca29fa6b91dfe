// The section of report.md: two plots per result, one series per variant
// so reconnect policies and modes can be compared: the handshakes the
// clients started per 100 ms over time ("the storm, seen") and the
// cumulative close times after t0 ("the spread, seen"), linked from
// report.md right after the failures plot, without a heading. Data here,
// drawing in render.go.

package websockets

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/capabilities/websockets/wsmetrics"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Section is the WebSocket section of a report: its two plots, linked
// right after the failures plot, without a heading. The zero value is
// ready to use; use a fresh one per report.
type Section struct {
	// plots are the plots drawn.
	plots []plotLink
}

// Plots draws the ws plots of res into dir when some run is a ws run.
func (s *Section) Plots(dir string, res *report.Result) []string {
	hs, cl, notes, ok := wsPlots(dir, res)
	if !ok {
		return notes
	}
	for _, p := range []struct {
		file, alt string
		render    func() ([]byte, error)
	}{
		{resultdir.WSHandshakesPlotFile, "handshakes per 100 ms", func() ([]byte, error) { return renderWSHandshakes(hs, res.Scenario) }},
		{resultdir.WSClosesPlotFile, "close times after the signal", func() ([]byte, error) { return renderWSCloses(cl, res.Scenario) }},
	} {
		b, err := p.render()
		if err == nil {
			err = resultdir.WriteFileAtomic(filepath.Join(dir, p.file), b)
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s not drawn: %v", p.file, err))
			continue
		}
		s.plots = append(s.plots, plotLink{Alt: p.alt, Path: p.file})
	}
	return notes
}

// Markdown links the ws plots drawn.
func (s *Section) Markdown(b *strings.Builder, _ *report.Result) {
	for _, p := range s.plots {
		fmt.Fprintf(b, "\n![%s](%s)\n", p.Alt, p.Path)
	}
}

// plotLink is one WebSocket plot report.md links.
type plotLink struct {
	// Alt is the image's alt text; Path its slash path relative to the
	// result directory.
	Alt, Path string
}

// wsSeries is one variant's line on a ws plot.
type wsSeries struct {
	// Label names the variant and the run drawn.
	Label string
	// Points are X (s after t0 for handshakes, ms after t0 for closes) and
	// Y (handshakes in the bucket, closes so far).
	Points []plotkit.Point
}

// wsPlotData is what one ws plot draws.
type wsPlotData struct {
	Series []wsSeries
	// Capacity is UPGRADES_PER_S / 10 (handshakes per 100 ms) of the
	// acted-on replica of the first run drawn that sets it; 0: none.
	Capacity float64
	// Notes go on the title's second line (where Capacity came from, the
	// spread windows).
	Notes []string
}

// wsPlotRun is the run a variant's ws plots draw: its first valid ws run,
// else its first ws run (labelled "not counted"); nil without a ws run.
func wsPlotRun(v *report.Variant) *report.Run {
	var first *report.Run
	for i := range v.Runs {
		r := &v.Runs[i]
		if Of(&r.Metrics) == nil {
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

// wsOrigin is the x origin of a run's ws plots: T0, else the load start.
func wsOrigin(meta record.Meta, ws *wsmetrics.Lines) (int64, bool) {
	if w, ok := shutdown.DeliveryWindow(meta); ok {
		return w.T0, true
	}
	return wsmetrics.PeakBase(meta, ws), false
}

// wsHandshakeSeries counts every attempt the clients started (any outcome)
// per 100 ms bucket from origin, from the first bucket to the last with
// the empty ones as 0, as a step line (x: bucket start, s after origin).
func wsHandshakeSeries(ws *wsmetrics.Lines, origin int64) []plotkit.Point {
	if len(ws.Attempts) == 0 {
		return nil
	}
	counts := map[int64]int{}
	lo, hi := int64(0), int64(0)
	for i, a := range ws.Attempts {
		b := floorDiv(a.Start-origin, wsmetrics.BucketNs)
		counts[b]++
		if i == 0 || b < lo {
			lo = b
		}
		if i == 0 || b > hi {
			hi = b
		}
	}
	out := make([]plotkit.Point, 0, hi-lo+2)
	for b := lo; b <= hi+1; b++ {
		out = append(out, plotkit.Point{X: float64(b*wsmetrics.BucketNs) / 1e9, Y: float64(counts[b])})
	}
	return out
}

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// wsCloseSeries is the cumulative count of the closes the client did not
// start at or after t0 (the population of ws_close_after_signal_*), as a
// step line from (0, 0) (x: ms after t0). Behind a proxy with opened
// handshakes no replica can be named for (wsmetrics.Unattributed), it counts the
// closes of every replica, and every is true.
func wsCloseSeries(meta record.Meta, ws *wsmetrics.Lines, t0 int64) (pts []plotkit.Point, every bool) {
	acted := wsmetrics.ActedUpstream(meta)
	if wsmetrics.Unattributed(meta, ws.Attempts) > 0 {
		acted, every = func(string) bool { return true }, true
	}
	times := wsmetrics.CloseTimes(ws, t0, acted)
	out := []plotkit.Point{{X: 0, Y: 0}}
	for i, ms := range times {
		out = append(out, plotkit.Point{X: ms, Y: float64(i + 1)})
	}
	return out, every
}

// wsPlots prepares both ws plots of res, reading the ws lines of one run
// per variant from dir; ok is false when res has no ws run. Runs that
// cannot be read, or have no action (no close plot), are left out with a
// note.
func wsPlots(dir string, res *report.Result) (hs, cl wsPlotData, notes []string, ok bool) {
	var spreads, caps [][2]string // CLOSE_SPREAD_MS or UPGRADES_PER_S, variant
	defer func() {
		cl.Notes = settingNote("CLOSE_SPREAD_MS", spreads)
		hs.Capacity, hs.Notes = capacityLine(caps)
	}()
	for i := range res.Variants {
		v := &res.Variants[i]
		r := wsPlotRun(v)
		if r == nil {
			continue
		}
		ok = true
		ws := &wsmetrics.Lines{}
		err := report.ReadRunLines(filepath.Join(dir, filepath.FromSlash(report.RunPath(v, r))), ws)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s run %d: ws plots not drawn: %v", v.Label, r.Meta.Run, err))
			continue
		}
		label := v.Label
		if !r.Valid {
			label += fmt.Sprintf(" (run %d, not counted)", r.Meta.Run)
		}
		origin, acted := wsOrigin(r.Meta, ws)
		hs.Series = append(hs.Series, wsSeries{Label: label, Points: wsHandshakeSeries(ws, origin)})
		capacity := "n/a"
		if w := Of(&r.Metrics); w.WSUpgradesPerS != nil {
			capacity = strconv.Itoa(*w.WSUpgradesPerS)
		}
		caps = append(caps, [2]string{capacity, v.Label})
		if !acted {
			notes = append(notes, fmt.Sprintf("%s run %d: no action, so no close times after t0 to draw", v.Label, r.Meta.Run))
			continue
		}
		pts, every := wsCloseSeries(r.Meta, ws, origin)
		if every {
			label += " (every replica)"
			notes = append(notes, fmt.Sprintf("%s run %d: %s draws the closes of every replica: opened handshakes without %s", v.Label, r.Meta.Run, resultdir.WSClosesPlotFile, record.UpstreamHeader))
		}
		spread := "n/a"
		if w := Of(&r.Metrics); w.WSCloseSpreadMs != nil {
			spread = report.FormatNumber(report.KindMs, *w.WSCloseSpreadMs)
		}
		spreads = append(spreads, [2]string{spread, v.Label})
		cl.Series = append(cl.Series, wsSeries{Label: fmt.Sprintf("%s: %d", label, len(pts)-1), Points: pts})
	}
	return hs, cl, notes, ok
}

// settingNote says which value of a setting the drawn runs had: once
// when they agree, else per variant ("n/a": unset or not recorded); nil
// when no run has a value.
func settingNote(name string, vals [][2]string) []string {
	if !slices.ContainsFunc(vals, func(v [2]string) bool { return v[0] != "n/a" }) {
		return nil
	}
	same := true
	var parts []string
	for _, v := range vals {
		same = same && v[0] == vals[0][0]
		parts = append(parts, v[0]+" ("+v[1]+")")
	}
	if same {
		return []string{name + " " + vals[0][0]}
	}
	return []string{name + " " + strings.Join(parts, ", ")}
}

// capacityLine is the handshake plot's capacity line: UPGRADES_PER_S / 10
// when every drawn run has the same positive value, else none and a note
// with the values.
func capacityLine(caps [][2]string) (float64, []string) {
	note := settingNote("UPGRADES_PER_S", caps)
	if len(note) == 0 || strings.Contains(note[0], "(") {
		return 0, note
	}
	n, err := strconv.Atoi(caps[0][0])
	if err != nil || n <= 0 {
		return 0, note
	}
	return float64(n) / 10, []string{fmt.Sprintf("dashed: one instance's capacity, UPGRADES_PER_S %d / 10", n)}
}
