package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

// wsFixtureWritten keeps -update from rewriting the ws fixture once per
// test.
var wsFixtureWritten bool

// loadWSFixture loads testdata/wsresult (rewritten first with -update).
func loadWSFixture(t *testing.T) *Result {
	t.Helper()
	if *update && !wsFixtureWritten {
		wsFixtureWritten = true
		if err := os.RemoveAll(wsFixtureDir); err != nil {
			t.Fatal(err)
		}
		if err := writeWSFixture(wsFixtureDir); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Load(wsFixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	res.GeneratedAt = goldenTime
	return res
}

// TestWSGolden renders every output of the ws fixture and compares it with
// testdata/golden-ws; go test -update rewrites the goldens.
func TestWSGolden(t *testing.T) {
	res := loadWSFixture(t)
	outs := map[string]func(*bytes.Buffer) error{
		resultdir.SummaryFile:   func(b *bytes.Buffer) error { return WriteSummary(b, res) },
		resultdir.MarkdownFile:  func(b *bytes.Buffer) error { return WriteMarkdown(b, res) },
		resultdir.CSVFile:       func(b *bytes.Buffer) error { return WriteCSV(b, res) },
		resultdir.SpreadCSVFile: func(b *bytes.Buffer) error { return WriteSpreadCSV(b, res) },
		"terminal.txt":          func(b *bytes.Buffer) error { return WriteTerminalTable(b, res) },
	}
	for name, write := range outs {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden-ws", name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from %s (run go test -update and review the diff):\n%s", name, golden, b.String())
			}
		})
	}
}

// TestWSFixtureShape checks the ws fixture says what the goldens claim:
// the storm meets replica-1's capacity under immediate and not under full
// jitter, the last stream is terminated (1006), and the run without a
// client's totals does not count.
func TestWSFixtureShape(t *testing.T) {
	res := loadWSFixture(t)
	if len(res.Variants) != 2 || res.Scenario != "fixture-ws" {
		t.Fatalf("variants/scenario = %d %q", len(res.Variants), res.Scenario)
	}
	imm, jit := &res.Variants[0], &res.Variants[1]
	for _, r := range imm.Runs {
		w := r.Metrics.WSMetrics
		if !r.Valid || w == nil {
			t.Fatalf("immediate run %d: valid %v (%s), ws metrics %v", r.Meta.Run, r.Valid, r.Reason, w != nil)
		}
		if w.WSClose1001 != wsFixClients-1 || w.WSClose1006 != 1 || w.WSTerminated != 1 {
			t.Errorf("immediate run %d: 1001 %d, 1006 %d, terminated %d", r.Meta.Run, w.WSClose1001, w.WSClose1006, w.WSTerminated)
		}
		if *w.WSRefusedCapacity == 0 || *w.WSRefusedDraining != wsFixClients/4 || *w.WSPeakHandshakes <= *w.WSUpgradesPerS/10 {
			t.Errorf("immediate run %d: capacity %d, draining %d, peak %d", r.Meta.Run, *w.WSRefusedCapacity, *w.WSRefusedDraining, *w.WSPeakHandshakes)
		}
	}
	if r := jit.Runs[1]; r.Valid || r.Metrics.AccountingOK {
		t.Errorf("full-jitter run 2 counts (%s): a client's totals are missing", r.Reason)
	}
	if w := jit.Runs[0].Metrics.WSMetrics; w == nil || *w.WSRefusedCapacity != 0 || *w.WSPeakHandshakes > *w.WSUpgradesPerS/10 || w.WSEventsUnknown == 0 {
		t.Errorf("full-jitter run 1: %+v, want no capacity refusals and a gap without replay", w)
	}
}
