package check

import (
	"strings"
	"testing"
)

// TestVerdictInterrupted: after an interrupt, check's verdict says an
// action that never started, or whose run was cut short, was not
// measured because of it; the ready path and the port are blamed only
// when no interrupt explains a missing run.
func TestVerdictInterrupted(t *testing.T) {
	measured := sigAction(run(0, 0, 0, 40, 0, 330))
	for _, tt := range []struct {
		name   string
		action actionRuns
		want   string
		absent string
	}{
		{"never started", actionRuns{Action: "docker stop -t 10", Stop: true, Signal: "SIGTERM", GraceS: 10, Interrupted: true},
			"not measured: the check was interrupted before it ran", "--ready-path"},
		{"cut short", actionRuns{Action: "docker stop -t 10", Stop: true, Signal: "SIGTERM", GraceS: 10, Interrupted: true, Recorded: 1, Incomplete: 1},
			"not measured: the check was interrupted during its run (kept in the report as incomplete, not counted)", "--ready-path"},
		{"not interrupted: the report says why", actionRuns{Action: "docker stop -t 10", Stop: true, Signal: "SIGTERM", GraceS: 10, Recorded: 1},
			"no valid run: nothing to judge (the report's \"Runs not counted\" says why; an image that never got ready needs the right --ready-path or --port)", "interrupted"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := verdict([]actionRuns{measured, tt.action})
			text := verdictText(checkOpts{image: "my/app:1", stopSignal: "SIGTERM", graceS: 10, runs: 1}, fs)
			if !strings.Contains(text, "  docker stop -t 10:\n    "+tt.want) {
				t.Errorf("verdict lacks %q:\n%s", tt.want, text)
			}
			if strings.Contains(text, tt.absent) {
				t.Errorf("verdict has %q:\n%s", tt.absent, text)
			}
			if verdictCode(fs) == VerdictClean {
				t.Errorf("an action not measured passed as clean:\n%s", text)
			}
		})
	}
	sr := searchResult{watch: 6, cands: []actionRuns{{Action: "SIGINT", Signal: "SIGINT", Interrupted: true}}}
	if text, _ := candidateText(sr.cands[0], sr.watch); text != "SIGINT: not measured: the check was interrupted before it ran" {
		t.Errorf("search candidate: %q", text)
	}
}
