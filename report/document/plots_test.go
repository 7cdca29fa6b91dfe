package document

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/internal/fixture"
)

// TestWritePlots writes the fixture's reports: every plot is a valid PNG,
// report.md links each one by a path that resolves from the result
// directory, and a second rendering gives the same bytes.
func TestWritePlots(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.WriteResult(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Rebuild(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, resultdir.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`!\[[^]]*\]\(([^)]+)\)`).FindAllStringSubmatch(string(md), -1)
	if len(links) != 7 { // failures.png + 6 runs
		t.Fatalf("report.md has %d image links, want 7:\n%s", len(links), md)
	}
	first := map[string][]byte{}
	for _, l := range links {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(l[1])))
		if err != nil {
			t.Fatalf("link %s: %v", l[1], err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", l[1], err)
		}
		if r := img.Bounds(); r.Dx() < 600 || r.Dy() < 300 {
			t.Errorf("%s: %v, too small", l[1], r)
		}
		first[l[1]] = b
	}
	if !strings.Contains(string(md), "](mode-full/run-001/latency.png)") {
		t.Errorf("no link to mode-full/run-001/latency.png")
	}
	if _, err := Rebuild(dir); err != nil {
		t.Fatal(err)
	}
	for name, b := range first {
		again, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if !bytes.Equal(again, b) {
			t.Errorf("%s differs between two renderings", name)
		}
	}
}

// TestWritePlotsMissingRecords: a run without records gets no plot, a note
// says so, and the report is still written.
func TestWritePlotsMissingRecords(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.WriteResult(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "mode-full", "run-002", "records.jsonl")); err != nil {
		t.Fatal(err)
	}
	if _, err := Rebuild(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, resultdir.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Plot notes") || !strings.Contains(string(md), "mode=full run 2: latency plot not drawn") {
		t.Errorf("no plot note in report.md:\n%s", md)
	}
	if strings.Contains(string(md), "mode-full/run-002/latency.png") {
		t.Errorf("report.md links a plot that was not drawn")
	}
	if _, err := os.Stat(filepath.Join(dir, "mode-full", "run-001", resultdir.LatencyPlotFile)); err != nil {
		t.Errorf("other runs lost their plots: %v", err)
	}
}

// TestJobsSection: the jobs fixture's report.md has the Jobs section and
// says what its runs did (report's TestJobsFixtureShape checks the
// metrics).
func TestJobsSection(t *testing.T) {
	res := loadFixture(t, fixture.JobsDir)
	var md bytes.Buffer
	if err := WriteMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Jobs", "The classes add up to the jobs inserted in every run with a ledger (4 of 4).",
		"| mode=close | 1 | yes | 137 | +10000 | no | `shutdown_returned ms=2.0` |",
		"| mode=full | 1 | yes | 0 | +6069 | yes | `exit code=0` |",
		"budget exceeds: mode close exits by 12s", "budget fits: mode full exits by 7s", "| 0/2 |", "| 2/2 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// TestJobsSectionOnlyForJobs: the other fixtures' report.md has no Jobs
// section (their goldens, unchanged, say the same).
func TestJobsSectionOnlyForJobs(t *testing.T) {
	var md bytes.Buffer
	if err := WriteMarkdown(&md, loadFixture(t, fixture.ResultDir)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "## Jobs") {
		t.Errorf("a Jobs section without a job ledger")
	}
}

// TestWritePlotsJobs is the plot smoke test: Rebuild of the jobs fixture
// draws one valid PNG per variant, linked from report.md, the same bytes
// twice.
func TestWritePlotsJobs(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.WriteJobs(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Rebuild(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, resultdir.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	first := map[string][]byte{}
	for _, rel := range []string{"mode-close/run-001/" + report.JobsPlotFile, "mode-full/run-001/" + report.JobsPlotFile} {
		if !regexp.MustCompile(`!\[jobs of the acted-on replica[^]]*\]\(` + regexp.QuoteMeta(rel) + `\)`).Match(md) {
			t.Errorf("report.md does not link %s", rel)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", rel, err)
		}
		if r := img.Bounds(); r.Dx() < 800 || r.Dy() < 400 {
			t.Errorf("%s: %v, too small", rel, r)
		}
		first[rel] = b
	}
	if strings.Contains(string(md), report.JobsPlotFile+" not drawn") {
		t.Errorf("a jobs plot note in report.md")
	}
	if _, err := Rebuild(dir); err != nil {
		t.Fatal(err)
	}
	for rel, b := range first {
		if again, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); !bytes.Equal(again, b) {
			t.Errorf("%s differs between two renderings", rel)
		}
	}
}
