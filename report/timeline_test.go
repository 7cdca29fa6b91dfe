package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
)

// lifecycleMeta is a run whose acted-on replica logged every phase
// (internal/fixture).
var lifecycleMeta = fixture.LifecycleMeta

func TestRunTimeline(t *testing.T) {
	tl := RunTimeline(lifecycleMeta())
	want := map[string]string{PhaseSent: "0", PhaseSignal: "+25.5", PhaseReadyFalse: "+26.0",
		PhaseListenerClosed: "+27.0", PhaseDrained: "+350", PhaseDeadline: "—", PhaseExit: "+400"}
	for _, p := range Phases {
		if got := tl.Cell(p); got != want[p] {
			t.Errorf("Cell(%s) = %q, want %q", p, got, want[p])
		}
	}
	if ms, ok := tl.Ms(PhaseExit); !ok || ms != 400 {
		t.Errorf("Ms(exit) = %v, %v", ms, ok)
	}

	// Never exited: NEVER, not a dash.
	m := lifecycleMeta()
	m.Replicas[1].Exited, m.Replicas[1].ExitCode, m.Replicas[1].ExitedNs = false, nil, 0
	if got := RunTimeline(m).Cell(PhaseExit); got != "NEVER" {
		t.Errorf("never exited: Cell(exit) = %q", got)
	}
	// No action: nothing is relative to anything.
	m.Action = nil
	tl = RunTimeline(m)
	for _, p := range Phases {
		if got := tl.Cell(p); got != "—" {
			t.Errorf("no action: Cell(%s) = %q, want —", p, got)
		}
	}
}

// TestTimelineGolden renders the per-variant timeline section of the
// fixture (no plots) and compares it with testdata/golden/timeline.md.
func TestTimelineGolden(t *testing.T) {
	res := loadFixture(t)
	var b strings.Builder
	writeTimeline(&b, res, nil)
	golden := filepath.Join("testdata", "golden", "timeline.md")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("timeline differs from %s (go test -update):\n%s", golden, b.String())
	}
	// The report carries the same section.
	var md bytes.Buffer
	if err := WriteMarkdown(&md, res, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), b.String()) {
		t.Errorf("report.md does not contain the timeline section")
	}
}
