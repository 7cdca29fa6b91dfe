package queuejobs

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/internal/sectiontest"
	"github.com/shutdownlab/shutdownlab/report"
)

// writeReport writes dir's reports with this package's section and
// returns report.md.
func writeReport(t *testing.T, dir string) []byte {
	t.Helper()
	return sectiontest.WriteReport(t, dir, &Section{})
}

// TestJobsSection: the jobs fixture's report.md has the Jobs section and
// says what its runs did (report's TestJobsFixtureShape checks the
// metrics).
func TestJobsSection(t *testing.T) {
	res := sectiontest.LoadFixture(t, fixture.JobsDir)
	var md bytes.Buffer
	if err := report.WriteMarkdown(&md, res, nil, []report.Section{&Section{}}); err != nil {
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
	if err := report.WriteMarkdown(&md, sectiontest.LoadFixture(t, fixture.ResultDir), nil, []report.Section{&Section{}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "## Jobs") {
		t.Errorf("a Jobs section without a job ledger")
	}
}

// TestWritePlotsJobs is the plot smoke test: the reports of the jobs
// fixture, written with the section, draw one valid PNG per variant,
// linked from report.md, the same bytes twice.
func TestWritePlotsJobs(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.WriteJobs(dir); err != nil {
		t.Fatal(err)
	}
	md := writeReport(t, dir)
	first := map[string][]byte{}
	for _, rel := range []string{"mode-close/run-001/" + PlotFile, "mode-full/run-001/" + PlotFile} {
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
	if strings.Contains(string(md), PlotFile+" not drawn") {
		t.Errorf("a jobs plot note in report.md")
	}
	writeReport(t, dir)
	for rel, b := range first {
		if again, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); !bytes.Equal(again, b) {
			t.Errorf("%s differs between two renderings", rel)
		}
	}
}
