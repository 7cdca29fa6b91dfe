package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/report"
)

// findRun returns the run of variant slug named name.
func findRun(t *testing.T, res *report.Result, slug, name string) report.Run {
	t.Helper()
	for _, v := range res.Variants {
		for _, r := range v.Runs {
			if v.Slug == slug && r.Name == name {
				return r
			}
		}
	}
	t.Fatalf("no run %s/%s", slug, name)
	return report.Run{}
}

// One broken run directory does not fail the report: it is kept as a run
// that does not count, named in Result.Unreadable and in report.md; the
// other runs are reported as usual.
func TestLoadSkipsUnreadableRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(testdata, fixture.ResultDir))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mode-full", "run-001", "events.json"), []byte(`{"scenario": `), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Rebuild(dir)
	if err != nil {
		t.Fatalf("Rebuild with one broken run: %v", err)
	}
	if len(res.Unreadable) != 1 || !strings.HasPrefix(res.Unreadable[0], "mode-full/run-001: ") || !strings.Contains(res.Unreadable[0], "events.json") {
		t.Errorf("Unreadable = %q", res.Unreadable)
	}
	r := findRun(t, res, "mode-full", "run-001")
	if r.Valid || !strings.HasPrefix(r.Reason, "unreadable, skipped: ") || r.Meta.Run != 1 {
		t.Errorf("broken run: valid=%v reason=%q run=%d", r.Valid, r.Reason, r.Meta.Run)
	}
	if ok := findRun(t, res, "mode-close", "run-001"); !ok.Valid {
		t.Errorf("an intact run became invalid: %q", ok.Reason)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "unreadable, skipped") {
		t.Errorf("report.md does not note the skipped run (%v)", err)
	}
}
