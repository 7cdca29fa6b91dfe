package check

import (
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestCheckVerdictOverlap: check's verdict notes a run that overlapped
// with another shutdownlab session, of its own actions or of its signal
// search, as report.md does; the note is no defect.
func TestCheckVerdictOverlap(t *testing.T) {
	vs := []scenarios.Variant{{Label: "action.kind=signal"}}
	vs[0].Spec.Action = scenarios.Action{Kind: scenarios.ActionSignal, Signal: "SIGTERM"}
	vs[0].Spec.Observe.Window = scenarios.Duration(15 * time.Second)
	res := &report.Result{Variants: []report.Variant{{Label: "action.kind=signal", Runs: []report.Run{
		{Meta: record.Meta{Run: 1, OverlappedWith: []string{"s-other"}}, Valid: true},
		{Meta: record.Meta{Run: 2}, Valid: true},
	}}}}
	acts := checkActions(checkOpts{graceS: 10}, vs, res)
	if len(acts) != 1 || len(acts[0].Runs) != 2 || acts[0].Recorded != 2 {
		t.Fatalf("actions %+v", acts)
	}
	if want := []string{"run 1 overlapped with another shutdownlab session (s-other)"}; strings.Join(acts[0].Overlapped, "|") != want[0] {
		t.Errorf("overlapped %q, want %q", acts[0].Overlapped, want)
	}
	clean := sigAction(run(0, 0, 0, 40, 0, 330), run(0, 0, 0, 40, 0, 330))
	clean.Overlapped = acts[0].Overlapped
	search := []actionRuns{{Action: "SIGINT", Signal: "SIGINT", Overlapped: []string{"run 1 overlapped with another shutdownlab session (s-third)"}}}
	fs := append(append(verdict([]actionRuns{clean}), overlapFindings([]actionRuns{clean}, "")...), overlapFindings(search, "signal search, ")...)
	text := verdictText(checkOpts{image: "my/app:1", stopSignal: "SIGTERM", graceS: 10, runs: 2}, fs)
	for _, w := range []string{
		"  notes:\n    - signal SIGTERM: run 1 overlapped with another shutdownlab session (s-other): its timings may be disturbed\n",
		"    - signal search, SIGINT: run 1 overlapped with another shutdownlab session (s-third): its timings may be disturbed\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("verdict lacks %q:\n%s", w, text)
		}
	}
	if code := verdictCode(fs); code != VerdictClean {
		t.Errorf("an overlap made the verdict %d, want clean:\n%s", code, text)
	}
	// check --manifest's verdict puts the signal search's overlaps among
	// its notes, after the search's findings.
	notes := manifestNotes(manifestOpts{pod: testPod(t)}, 0, append(searchFindings(searchResult{watch: 6, cands: search}), overlapFindings(search, "signal search, ")...), nil)
	if !strings.Contains(notes, "  note: signal search, SIGINT: run 1 overlapped with another shutdownlab session (s-third): its timings may be disturbed\n") ||
		strings.Contains(notes, "    - signal search, SIGINT: run 1 overlapped") {
		t.Errorf("manifest notes:\n%s", notes)
	}
}
