package runner

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// recordingProgress keeps what Logf printed.
type recordingProgress struct {
	Progress
	lines []string
}

func (p *recordingProgress) Logf(format string, args ...any) {
	p.lines = append(p.lines, fmt.Sprintf(format, args...))
}

func TestLogBudget(t *testing.T) {
	s := scenarios.Defaults()
	p := &recordingProgress{}
	if _, ok := LogBudget(p, "mode=full", &s); ok || len(p.lines) != 0 {
		t.Errorf("an agent load audited: %q", p.lines)
	}
	var jobs scenarios.LoadSpec // the jobs kind, registered by its capability
	if err := json.Unmarshal([]byte(`{"kind":"jobs","jobs":{"count":4,"steps":20,"step_ms":1000}}`), &jobs); err != nil {
		t.Fatal(err)
	}
	s.Load.Kind, s.Action.Kind = jobs.Kind, scenarios.ActionStop
	s.Load.SetBlock(jobs.Block(jobs.Kind))
	b, ok := LogBudget(p, "mode=full", &s)
	if !ok || !b.Fits || len(p.lines) != 1 || !strings.HasPrefix(p.lines[0], "[mode=full] budget fits: mode full exits by 6s") {
		t.Errorf("audit %+v, printed %q", b, p.lines)
	}
}
