package runner

import (
	"fmt"
	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs"
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
	s.Load.Kind, s.Action.Kind = queuejobs.LoadKind, scenarios.ActionStop
	s.Load.SetBlock(&queuejobs.Load{Count: 4, Steps: 20, StepMS: 1000})
	b, ok := LogBudget(p, "mode=full", &s)
	if !ok || !b.Fits || len(p.lines) != 1 || !strings.HasPrefix(p.lines[0], "[mode=full] budget fits: mode full exits by 6s") {
		t.Errorf("audit %+v, printed %q", b, p.lines)
	}
}
