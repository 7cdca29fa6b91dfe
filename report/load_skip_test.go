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
