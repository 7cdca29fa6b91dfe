package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// findRun returns the run of variant slug named name.
func findRun(t *testing.T, res *Result, slug, name string) Run {
	t.Helper()
	for _, v := range res.Variants {
		for _, r := range v.Runs {
			if v.Slug == slug && r.Name == name {
				return r
			}
		}
	}
	t.Fatalf("no run %s/%s", slug, name)
	return Run{}
}

// One broken run directory does not fail the report: it is kept as a run
// that does not count, named in Result.Unreadable and in report.md; the
// other runs are reported as usual.
func TestLoadSkipsUnreadableRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/result")); err != nil {
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

// A run directory left by a harness that was SIGKILLed (records, no
// events.json) says what is missing, not "marked invalid by the runner".
func TestLoadKilledRunSaysWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/result")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "mode-full", "run-001", "events.json"))
	res, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := findRun(t, res, "mode-full", "run-001")
	if r.Valid || !strings.Contains(r.Reason, "missing events.json: the run never finished") || strings.Contains(r.Reason, "marked invalid by the runner") {
		t.Errorf("killed run: valid=%v reason=%q", r.Valid, r.Reason)
	}
	if !strings.Contains(r.Reason, "records.jsonl is there") {
		t.Errorf("reason does not say the records are there: %q", r.Reason)
	}
}
