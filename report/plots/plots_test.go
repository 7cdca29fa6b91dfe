package plots

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// at is the fixtures' load start + n ms.
func at(n float64) int64 { return fixture.At(n) }

// lifecycleMeta is a run whose acted-on replica logged every phase
// (internal/fixture).
var lifecycleMeta = fixture.LifecycleMeta

// loadFixture loads the committed synthetic result report/testdata/result.
func loadFixture(t *testing.T) *report.Result {
	t.Helper()
	res, err := report.Load(filepath.Join("..", "testdata", fixture.ResultDir))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// mixedReqs is 1000 ok requests 1 ms apart (latency 300 ms), plus failures
// of every kind and five not_sent slots.
func mixedReqs() []record.Request {
	var reqs []record.Request
	add := func(c record.Class, status int, startMs, latMs float64) {
		reqs = append(reqs, record.Request{Type: "req", ID: fmt.Sprint(len(reqs)), Class: c, Status: status,
			Start: at(startMs), End: at(startMs + latMs)})
	}
	for i := range 1000 {
		add(record.ClassOK, 200, float64(i), 300)
	}
	for i := range 10 {
		add(record.ClassRefused, 0, 1100+float64(i), 1)
	}
	for i := range 3 {
		add(record.ClassHTTPError, 503, 1050+float64(i), 2)
	}
	add(record.ClassHTTPError, 404, 1060, 2)
	add(record.ClassReset, 0, 999.5, 0.5)
	add(record.ClassTimeout, 0, 500, 3000)
	for i := range 5 {
		add(record.ClassNotSent, 0, 1200+float64(i), 0)
	}
	return reqs
}

func seriesByKey(d latencyData) map[string]latencySeries {
	out := map[string]latencySeries{}
	for _, s := range d.Series {
		out[s.Key] = s
	}
	return out
}

func TestLatencySeriesAll(t *testing.T) {
	d := latencySeriesOf(lifecycleMeta(), mixedReqs(), MaxLatencyPoints)
	if d.Total != 1016 || d.Kept != 1016 || d.NotSent != 5 || d.Stride != 1 {
		t.Fatalf("total/kept/not_sent/stride = %d/%d/%d/%d", d.Total, d.Kept, d.NotSent, d.Stride)
	}
	var keys []string
	for _, s := range d.Series {
		keys = append(keys, s.Key)
	}
	// Legend order, http_error split by status, absent classes left out.
	if want := []string{"ok", "http_5xx", "http_other", "refused", "reset", "timeout"}; !slices.Equal(keys, want) {
		t.Errorf("series = %v, want %v", keys, want)
	}
	by := seriesByKey(d)
	if p := by["timeout"].Points[0]; p.X != 0.5 || p.Y != 3000 {
		t.Errorf("timeout point = %+v, want {0.5 3000}", p)
	}
	if p := by["ok"].Points[0]; p.X != 0 || p.Y != 300 {
		t.Errorf("first ok point = %+v, want {0 300}", p)
	}
	if by["http_5xx"].Total != 3 || by["http_other"].Total != 1 {
		t.Errorf("http split = %d/%d", by["http_5xx"].Total, by["http_other"].Total)
	}
}

func TestLatencySeriesSubsample(t *testing.T) {
	reqs := mixedReqs()
	d := latencySeriesOf(lifecycleMeta(), reqs, 100)
	// 16 failures are all kept; 84 points remain for 1000 ok: stride 12.
	if d.Stride != 12 {
		t.Fatalf("stride = %d, want 12", d.Stride)
	}
	by := seriesByKey(d)
	if n := len(by["ok"].Points); n != 84 || by["ok"].Total != 1000 {
		t.Errorf("ok points = %d of %d, want 84 of 1000", n, by["ok"].Total)
	}
	for _, k := range []string{"http_5xx", "http_other", "refused", "reset", "timeout"} {
		if s := by[k]; len(s.Points) != s.Total {
			t.Errorf("%s: %d of %d points kept, want all", k, len(s.Points), s.Total)
		}
	}
	if d.Kept != 100 || d.Kept > 100 {
		t.Errorf("kept = %d, want 100", d.Kept)
	}
	// Every 12th ok request in start order, from the first.
	for i, p := range by["ok"].Points {
		if want := float64(i*12) / 1000; math.Abs(p.X-want) > 1e-9 {
			t.Fatalf("ok point %d at %v s, want %v", i, p.X, want)
		}
	}
	if !strings.Contains(latencySubtitle(d), "1 in 12 ok") {
		t.Errorf("subtitle does not say it was subsampled: %q", latencySubtitle(d))
	}
	// The same records in another order give the same series.
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
	d2 := latencySeriesOf(lifecycleMeta(), reqs, 100)
	if fmt.Sprint(d2) != fmt.Sprint(d) {
		t.Errorf("series depend on record order")
	}
}

func TestLatencyMarkers(t *testing.T) {
	d := latencySeriesOf(lifecycleMeta(), nil, MaxLatencyPoints)
	var got []string
	for _, m := range d.Markers {
		got = append(got, fmt.Sprintf("%s@%.4f %s", m.Name, m.X, m.Label))
	}
	want := []string{
		"t0@1.0000 t0 action sent +0.0 ms",
		"t@1.0255 t signal (app) +25.5 ms",
		"ready_false@1.0260 ready_false +26.0 ms",
		"listener_closed@1.0270 listener_closed +27.0 ms",
		"drained@1.3500 drained +350 ms",
		"exit@1.4000 exit (engine) +400 ms",
	}
	if !slices.Equal(got, want) {
		t.Errorf("markers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// docker stop without an app signal: t is the upper bound of the
	// delivery window (here docker stop's return, before the exit).
	m := lifecycleMeta()
	m.Action.Kind = "stop"
	m.Replicas[1].Events = nil
	d = latencySeriesOf(m, nil, MaxLatencyPoints)
	if len(d.Markers) != 3 || d.Markers[0].Name != "t0" || d.Markers[1].Label != "t signal (stop_return) +30.0 ms" || d.Markers[2].Name != report.PhaseExit {
		t.Errorf("stop without events: markers = %+v", d.Markers)
	}
	// No action: no markers.
	m.Action = nil
	if d = latencySeriesOf(m, nil, MaxLatencyPoints); len(d.Markers) != 0 {
		t.Errorf("no action: markers = %+v", d.Markers)
	}
}

// TestPlotStyles checks every series and marker has its own style.
func TestPlotStyles(t *testing.T) {
	seen := map[any]string{}
	for _, k := range seriesOrder {
		st, ok := seriesStyles[k]
		if !ok {
			t.Errorf("series %s has no style", k)
		}
		if other, dup := seen[st.Color]; dup {
			t.Errorf("series %s and %s share a colour", k, other)
		}
		seen[st.Color] = k
	}
	for _, k := range []string{"t0", "t", report.PhaseReadyFalse, report.PhaseListenerClosed, report.PhaseDrained, report.PhaseDeadline, report.PhaseExit} {
		if _, ok := markerStyles[k]; !ok {
			t.Errorf("marker %s has no style", k)
		}
	}
}

func TestFailureBars(t *testing.T) {
	res := loadFixture(t)
	names, vals := failureBars(res)
	if !slices.Equal(names, failureMetrics) {
		t.Fatalf("names = %v", names)
	}
	// mode=full: dropped_inflight is 1 and 0 in its valid runs 1 and 3;
	// the median is the lower middle value, as in report.md.
	if got := vals[1][1]; got != 0 {
		t.Errorf("mode=full dropped_inflight median = %v, want 0", got)
	}
	s, _ := res.Variants[1].Spreads(res.Rows()).Get("failed_while_running")
	if got := vals[0][1]; got != *s.Median {
		t.Errorf("mode=full failed_while_running = %v, want the spread's median %v", got, *s.Median)
	}
	// A variant without a valid run has no bar value.
	res.Variants[0].Runs = nil
	if _, vals := failureBars(res); !math.IsNaN(vals[0][0]) {
		t.Errorf("variant without runs: bar = %v, want NaN", vals[0][0])
	}
}
