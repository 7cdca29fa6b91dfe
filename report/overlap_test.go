package report

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// TestMarkdownOverlapNote: a run that overlapped with another shutdownlab
// session on the same engine gets a note naming the session; it still
// counts (the report never hides or drops it for that), and a run without
// overlap gets no such note.
func TestMarkdownOverlapNote(t *testing.T) {
	res := &Result{Scenario: "s", Variants: []Variant{{Label: "v", Slug: "v", Runs: []Run{
		{Name: "run-001", Meta: record.Meta{Run: 1, Valid: true}, Valid: true},
		{Name: "run-002", Meta: record.Meta{Run: 2, Valid: true, OverlappedWith: []string{"abc123", "def456"}}, Valid: true},
	}}}}
	var b strings.Builder
	if err := WriteMarkdown(&b, res, nil, nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	want := "- v run 2 overlapped with another shutdownlab session (abc123, def456): its timings may be disturbed"
	if !strings.Contains(md, want) {
		t.Errorf("report lacks the overlap note %q:\n%s", want, md)
	}
	if strings.Contains(md, "run 1 overlapped") {
		t.Errorf("run 1 did not overlap but has a note")
	}
}
