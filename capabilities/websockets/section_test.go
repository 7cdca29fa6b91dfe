package websockets

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/websockets/wsmetrics"
	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/internal/sectiontest"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/plotkit"
)

// The hand-made ws records (internal/fixture).
const wsT0 = fixture.WST0

var (
	opened  = fixture.WSOpened
	refused = fixture.WSRefused
	closed  = fixture.WSClosed
)

// eqF compares two nullable floats.
func eqF(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) < 1e-9
}

func TestFloorDiv(t *testing.T) {
	for _, tt := range []struct{ a, b, want int64 }{{0, 100, 0}, {99, 100, 0}, {100, 100, 1}, {-1, 100, -1}, {-100, 100, -1}, {-101, 100, -2}} {
		if got := floorDiv(tt.a, tt.b); got != tt.want {
			t.Errorf("floorDiv(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestWSHandshakeSeries(t *testing.T) {
	tests := []struct {
		name     string
		attempts []record.WSAttempt
		want     []plotkit.Point
	}{
		{"no attempt", nil, nil},
		{"every outcome counts; empty buckets are 0; one step past the last", []record.WSAttempt{
			opened(0, 1, 1, -150, -149, ""), // bucket -2
			opened(1, 2, 2, 10, 11, ""), refused(2, 2, 20, 0, "", "", record.ClassRefused), refused(3, 2, 99, 503, record.RefusalCapacity, "", record.ClassHTTPError),
			opened(4, 2, 3, 250, 251, ""),
		}, []plotkit.Point{{X: -0.2, Y: 1}, {X: -0.1, Y: 0}, {X: 0, Y: 3}, {X: 0.1, Y: 0}, {X: 0.2, Y: 1}, {X: 0.3, Y: 0}}},
	}
	for _, tt := range tests {
		got := wsHandshakeSeries(&wsmetrics.Lines{Attempts: tt.attempts}, wsT0)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if !eqF(&got[i].X, &tt.want[i].X) || got[i].Y != tt.want[i].Y {
				t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
}

// TestWSCloseSeries: a step from (0, 0) through every close the client did
// not start at or after t0.
func TestWSCloseSeries(t *testing.T) {
	ws := &wsmetrics.Lines{Closes: []record.WSClose{
		closed(0, 1, 1, 300, 1001, record.WSClosedByServer),
		closed(1, 1, 2, -20, 1001, record.WSClosedByServer),
		closed(2, 1, 3, 100, 1006, record.WSClosedAbnormal),
		closed(3, 1, 4, 50, 1000, record.WSClosedByClient),
	}}
	got, every := wsCloseSeries(record.Meta{}, ws, wsT0)
	if want := []plotkit.Point{{X: 0, Y: 0}, {X: 100, Y: 1}, {X: 300, Y: 2}}; !reflect.DeepEqual(got, want) || every {
		t.Errorf("%v (every replica %v), want %v", got, every, want)
	}
	// Behind the proxy: replica-0's closes only, unless a connection's
	// replica is unknown; then every replica's, said so.
	ws.Attempts = []record.WSAttempt{opened(0, 1, 1, -900, -899, "replica-1:8080"), opened(2, 1, 3, -900, -899, "replica-0:8080")}
	meta := record.Meta{Topology: record.TopologyCaddy, Replicas: []record.Replica{{Name: "replica-0"}, {Name: "replica-1"}}}
	if got, every := wsCloseSeries(meta, ws, wsT0); !reflect.DeepEqual(got, []plotkit.Point{{X: 0, Y: 0}, {X: 100, Y: 1}}) || every {
		t.Errorf("behind the proxy: %v (every %v), want replica-0's close only", got, every)
	}
	ws.Attempts = append(ws.Attempts, opened(5, 1, 9, -900, -899, ""))
	if got, every := wsCloseSeries(meta, ws, wsT0); len(got) != 3 || !every {
		t.Errorf("an unattributed connection: %v (every %v), want every replica's closes", got, every)
	}
}

func TestCapacityLine(t *testing.T) {
	tests := []struct {
		caps [][2]string
		want float64
		note string
	}{
		{nil, 0, ""},
		{[][2]string{{"50", "a"}, {"50", "b"}}, 5, "dashed: one instance's capacity, UPGRADES_PER_S 50 / 10"},
		{[][2]string{{"50", "a"}, {"80", "b"}}, 0, "UPGRADES_PER_S 50 (a), 80 (b)"},
		{[][2]string{{"n/a", "a"}, {"n/a", "b"}}, 0, ""},
		{[][2]string{{"50", "a"}, {"n/a", "b"}}, 0, "UPGRADES_PER_S 50 (a), n/a (b)"},
		{[][2]string{{"0", "a"}}, 0, "UPGRADES_PER_S 0"},
	}
	for _, tt := range tests {
		got, note := capacityLine(tt.caps)
		if got != tt.want || strings.Join(note, "") != tt.note {
			t.Errorf("capacityLine(%v) = %g %q, want %g %q", tt.caps, got, note, tt.want, tt.note)
		}
	}
}

func TestWSPlotRun(t *testing.T) {
	var ws report.Metrics
	ws.SetPart(Need, &wsmetrics.Metrics{})
	v := report.Variant{Runs: []report.Run{{Name: "run-001"}, {Name: "run-002", Metrics: ws}, {Name: "run-003", Valid: true, Metrics: ws}}}
	if r := wsPlotRun(&v); r == nil || r.Name != "run-003" {
		t.Errorf("picked %v, want the first valid ws run", r)
	}
	v.Runs[2].Valid = false
	if r := wsPlotRun(&v); r == nil || r.Name != "run-002" {
		t.Errorf("picked %v, want the first ws run when none is valid", r)
	}
	if r := wsPlotRun(&report.Variant{Runs: []report.Run{{Name: "run-001", Valid: true}}}); r != nil {
		t.Errorf("picked %s of an agent variant", r.Name)
	}
}

// TestWritePlotsWS writes the ws fixture's reports with the section: both
// ws plots are valid PNGs linked from report.md, and a second rendering
// gives the same bytes; a result without ws runs gets neither
// (report/document's TestWritePlots counts its links).
func TestWritePlotsWS(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.WriteWS(dir); err != nil {
		t.Fatal(err)
	}
	md := writeReport(t, dir)
	first := map[string][]byte{}
	for _, name := range []string{resultdir.WSHandshakesPlotFile, resultdir.WSClosesPlotFile} {
		if !regexp.MustCompile(`!\[[^]]*\]\(` + regexp.QuoteMeta(name) + `\)`).Match(md) {
			t.Errorf("report.md does not link %s", name)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", name, err)
		}
		if r := img.Bounds(); r.Dx() < 600 || r.Dy() < 300 {
			t.Errorf("%s: %v, too small", name, r)
		}
		first[name] = b
	}
	if strings.Contains(string(md), "ws plots not drawn") {
		t.Errorf("a ws plot note in report.md:\n%s", md)
	}
	writeReport(t, dir)
	for name, b := range first {
		if again, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(again, b) {
			t.Errorf("%s differs between two renderings", name)
		}
	}
}

// writeReport writes dir's reports with this package's section and
// returns report.md.
func writeReport(t *testing.T, dir string) []byte {
	t.Helper()
	return sectiontest.WriteReport(t, dir, &Section{})
}

// TestWSPlotsData: one series per variant, the storm above the capacity
// line under immediate and not under full jitter, every close drawn.
func TestWSPlotsData(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.WriteWS(dir); err != nil {
		t.Fatal(err)
	}
	res, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	hs, cl, notes, ok := wsPlots(dir, res)
	if !ok || len(notes) > 0 || len(hs.Series) != 2 || len(cl.Series) != 2 || hs.Capacity != 5 {
		t.Fatalf("ok %v, notes %v, %d/%d series, capacity %g", ok, notes, len(hs.Series), len(cl.Series), hs.Capacity)
	}
	peak := func(s wsSeries) float64 { // from t0 on: before it, the clients' first connections
		m := 0.0
		for _, p := range s.Points {
			if p.X >= 0 {
				m = max(m, p.Y)
			}
		}
		return m
	}
	if peak(hs.Series[0]) <= hs.Capacity || peak(hs.Series[1]) > hs.Capacity {
		t.Errorf("peaks %g (immediate), %g (full jitter) against capacity %g", peak(hs.Series[0]), peak(hs.Series[1]), hs.Capacity)
	}
	for _, s := range cl.Series {
		if n := len(s.Points) - 1; n != fixture.WSClients || !strings.HasSuffix(s.Label, ": 20") {
			t.Errorf("%s: %d closes drawn, want %d", s.Label, n, fixture.WSClients)
		}
	}
	if _, _, _, ok := wsPlots(dir, &report.Result{Variants: []report.Variant{{Runs: []report.Run{{Valid: true}}}}}); ok {
		t.Errorf("ws plots for a result without ws runs")
	}
}
