package report

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

// loadJobsFixture loads testdata/jobsresult (rewritten first with -update).
func loadJobsFixture(t *testing.T) *Result {
	return loadFixtureDir(t, jobsFixtureDir, writeJobsFixture)
}

// TestJobsGolden renders every output of the jobs fixture and compares it
// with testdata/golden-jobs; go test -update rewrites the goldens.
func TestJobsGolden(t *testing.T) { checkGoldens(t, loadJobsFixture(t), "golden-jobs") }

// TestJobsFixtureShape checks the jobs fixture says what the goldens
// claim: close is killed with its jobs cut (left running, or rescued and
// applied twice), full hands its jobs back and exits by itself, and the
// Jobs section says so.
func TestJobsFixtureShape(t *testing.T) {
	res := loadJobsFixture(t)
	if len(res.Variants) != 2 || res.Scenario != "fixture-jobs" {
		t.Fatalf("variants/scenario = %d %q", len(res.Variants), res.Scenario)
	}
	closeV, fullV := &res.Variants[0], &res.Variants[1]
	for _, r := range append(closeV.Runs, fullV.Runs...) {
		notes := strings.Join(r.Metrics.Notes, "\n")
		if !r.Valid || r.Metrics.JobsMetrics == nil || strings.Contains(notes, "jobs ledger") != (r.Meta.Variant == "mode=full" && r.Meta.Run == 2) {
			t.Errorf("%s run %d: valid %v (%s), notes %q", r.Meta.Variant, r.Meta.Run, r.Valid, r.Reason, r.Metrics.Notes)
		}
	}
	c1, c2 := closeV.Runs[0].Metrics.JobsMetrics, closeV.Runs[1].Metrics.JobsMetrics
	if c1.JobsRunning != 2 || c1.JobsAbandoned != 2 || c1.FinalLog || *c1.BudgetFits || c1.RescueDueMs == nil || c1.JobHandoverMs != nil {
		t.Errorf("close run 1: %+v", c1)
	}
	if c2.JobsCompletedHandover != 2 || c2.JobsStepsTwice != 2 || c2.JobsExtraEffects != 10 || *c2.JobHandoverMs != 30000 {
		t.Errorf("close run 2: %+v", c2)
	}
	f1, f2 := fullV.Runs[0].Metrics.JobsMetrics, fullV.Runs[1].Metrics.JobsMetrics
	if f1.JobsCompletedHandover != 2 || *f1.JobsCut != 2 || !f1.FinalLog || !*f1.BudgetFits || f1.JobsStepsTwice != 0 || f1.JobsAbandoned != 0 {
		t.Errorf("full run 1: %+v", f1)
	}
	if f2.JobsStepsMissing != 1 {
		t.Errorf("full run 2: the lost step is not flagged: %+v", f2)
	}
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
	if err := WriteMarkdown(&md, loadFixture(t)); err != nil {
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
	if err := writeJobsFixture(dir); err != nil {
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
	for _, rel := range []string{"mode-close/run-001/" + JobsPlotFile, "mode-full/run-001/" + JobsPlotFile} {
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
	if strings.Contains(string(md), JobsPlotFile+" not drawn") {
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
