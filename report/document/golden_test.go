package document

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
)

var update = flag.Bool("update", false, "rewrite report/testdata/golden* from the committed fixtures "+
	"(rewrite those first with go test -update in report)")

// TestMain installs the program's capabilities, as its Main does
// (capabilities.Install): the document is the whole report, every
// capability's rows included.
func TestMain(m *testing.M) {
	capabilities.Install()
	os.Exit(m.Run())
}

// testdata is report's testdata directory: the committed fixtures and the
// goldens.
const testdata = "../testdata"

// loadFixture loads the committed synthetic result testdata/name, with
// the goldens' generated_at.
func loadFixture(t *testing.T, name string) *report.Result {
	t.Helper()
	res, err := report.Load(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	res.GeneratedAt = fixture.GeneratedAt
	return res
}

// TestGolden renders every output of the fixture and compares it with
// testdata/golden; go test -update rewrites the goldens.
func TestGolden(t *testing.T) { checkGoldens(t, loadFixture(t, fixture.ResultDir), "golden") }

// TestWSGolden renders every output of the ws fixture and compares it with
// testdata/golden-ws; go test -update rewrites the goldens.
func TestWSGolden(t *testing.T) { checkGoldens(t, loadFixture(t, fixture.WSDir), "golden-ws") }

// TestJobsGolden renders every output of the jobs fixture and compares it
// with testdata/golden-jobs; go test -update rewrites the goldens.
func TestJobsGolden(t *testing.T) { checkGoldens(t, loadFixture(t, fixture.JobsDir), "golden-jobs") }

// TestKilledGolden: every output of a result whose harness was killed
// before any run finished is checked against testdata/golden-killed
// (report's TestKilledResult checks what it says).
func TestKilledGolden(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20261129-181500-fixture-roll")
	if err := fixture.WriteKilled(dir, filepath.Join(testdata, fixture.ResultDir)); err != nil {
		t.Fatal(err)
	}
	res, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	res.GeneratedAt = fixture.GeneratedAt
	checkGoldens(t, res, "golden-killed")
}

// checkGoldens renders every output of res and compares each with
// testdata/<dir>/<name>; go test -update rewrites them.
func checkGoldens(t *testing.T, res *report.Result, dir string) {
	outs := map[string]func(*bytes.Buffer) error{
		resultdir.SummaryFile:   func(b *bytes.Buffer) error { return report.WriteSummary(b, res) },
		resultdir.MarkdownFile:  func(b *bytes.Buffer) error { return WriteMarkdown(b, res) },
		resultdir.CSVFile:       func(b *bytes.Buffer) error { return report.WriteCSV(b, res) },
		resultdir.SpreadCSVFile: func(b *bytes.Buffer) error { return report.WriteSpreadCSV(b, res) },
		"terminal.txt":          func(b *bytes.Buffer) error { return report.WriteTerminalTable(b, res) },
	}
	for name, write := range outs {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(testdata, dir, name)
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

// TestWriteAndRebuild writes the reports into a copy of the fixture.
func TestWriteAndRebuild(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.WriteResult(dir); err != nil {
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
