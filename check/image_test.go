package check

import (
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestCheckActionsRecorded: an action is named by what its runs recorded
// (the signal sent, docker stop's -t or the container's stop timeout),
// and by the plan when no run fired it.
func TestCheckActionsRecorded(t *testing.T) {
	vs := []scenarios.Variant{{Label: "signal"}, {Label: "stop"}, {Label: "never"}}
	vs[0].Spec.Action = scenarios.Action{Kind: scenarios.ActionSignal, Signal: "SIGTERM"}
	vs[1].Spec.Action = scenarios.Action{Kind: scenarios.ActionStop}
	vs[2].Spec.Action = scenarios.Action{Kind: scenarios.ActionSignal, Signal: "SIGTERM"}
	for i := range vs {
		vs[i].Spec.Observe.Window = scenarios.Duration(15 * time.Second)
	}
	ran := func(a *record.Action, stopTimeout *int) report.Run {
		return report.Run{Meta: record.Meta{Run: 1, Action: a, Replicas: []record.Replica{{StopTimeoutS: stopTimeout}}}, Valid: true}
	}
	res := &report.Result{Variants: []report.Variant{
		{Label: "signal", Runs: []report.Run{ran(&record.Action{Kind: "signal", Signal: "SIGQUIT", SentNs: 1}, ip(12))}},
		{Label: "stop", Runs: []report.Run{ran(&record.Action{Kind: "stop", SentNs: 1, StopTimeoutS: ip(7)}, ip(12))}},
		{Label: "never", Runs: []report.Run{ran(&record.Action{Kind: "signal", Signal: "SIGQUIT"}, ip(12))}},
	}}
	acts := checkActions(checkOpts{graceS: 10, stopSignal: "SIGINT"}, vs, res)
	for i, want := range []actionRuns{
		{Action: "signal SIGQUIT", Signal: "SIGQUIT", GraceS: 12},
		{Action: "docker stop -t 7", Signal: "SIGINT", GraceS: 7, Stop: true},
		{Action: "signal SIGTERM", Signal: "SIGTERM", GraceS: 10},
	} {
		a := acts[i]
		if a.Action != want.Action || a.Signal != want.Signal || a.GraceS != want.GraceS || a.Stop != want.Stop || a.WindowS != 15 || len(a.Runs) != 1 {
			t.Errorf("action %d: %+v, want %+v", i, a, want)
		}
	}
}
