package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

var update = flag.Bool("update", false, "rewrite testdata/result and testdata/golden")

// goldenTime is the fixed generated_at of the golden files.
var goldenTime = time.Date(2026, 11, 29, 18, 15, 0, 0, time.UTC)

// fixtureDir is the committed synthetic result directory.
const fixtureDir = "testdata/result"

// fixtureWritten records the fixtures -update has rewritten in this test
// binary, so each is rewritten once.
var fixtureWritten = map[string]bool{}

// loadFixtureDir loads the synthetic result in dir, rewriting it first
// with write under -update.
func loadFixtureDir(t *testing.T, dir string, write func(string) error) *Result {
	t.Helper()
	if *update && !fixtureWritten[dir] {
		fixtureWritten[dir] = true
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := write(dir); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.GeneratedAt = goldenTime
	return res
}

func loadFixture(t *testing.T) *Result { return loadFixtureDir(t, fixtureDir, writeFixture) }

// TestGolden renders every output of the fixture and compares it with
// testdata/golden; go test -update rewrites the goldens.
func TestGolden(t *testing.T) { checkGoldens(t, loadFixture(t), "golden") }

// checkGoldens renders every output of res and compares each with
// testdata/<dir>/<name>; go test -update rewrites them.
func checkGoldens(t *testing.T, res *Result, dir string) {
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
			golden := filepath.Join("testdata", dir, name)
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

// TestFixtureShape checks the fixture says what the goldens claim: an
// invalid run, an accounting error, NEVER exits.
func TestFixtureShape(t *testing.T) {
	res := loadFixture(t)
	if len(res.Variants) != 2 || res.Variants[0].Label != "mode=close" || res.Scenario != "fixture-roll" {
		t.Fatalf("variants/scenario = %d %q", len(res.Variants), res.Scenario)
	}
	closeV, fullV := &res.Variants[0], &res.Variants[1]
	if r := closeV.Runs[2]; r.Valid || r.Reason != "target never ready" {
		t.Errorf("close run 3 = valid %v %q, want invalid", r.Valid, r.Reason)
	}
	if r := fullV.Runs[1]; r.Valid || r.Reason != "accounting error" || r.Metrics.AccountingOK {
		t.Errorf("full run 2 = valid %v %q, want accounting error", r.Valid, r.Reason)
	}
	rows := res.Rows()
	s, _ := closeV.Spreads(rows).Get("exit_after_ms")
	if s.N != 2 || s.Nulls != 2 {
		t.Errorf("close exit_after_ms spread = %+v, want NEVER 2/2", s)
	}
	s, _ = fullV.Spreads(rows).Get("dropped_inflight")
	if s.N != 2 || *s.Max != 1 {
		t.Errorf("full dropped_inflight spread = %+v, want max 1 over 2 runs", s)
	}
}

// TestWriteAndRebuild writes the reports into a copy of the fixture.
func TestWriteAndRebuild(t *testing.T) {
	dir := t.TempDir()
	if err := writeFixture(dir); err != nil {
		t.Fatal(err)
	}
	res, err := Rebuild(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.GeneratedAt.IsZero() {
		t.Errorf("generated_at not set")
	}
	for _, name := range []string{resultdir.SummaryFile, resultdir.MarkdownFile, resultdir.CSVFile, resultdir.SpreadCSVFile} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
