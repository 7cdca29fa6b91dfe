package check

import (
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// variantOf is a termination variant as check --manifest generates one:
// preStop sleep 3s, SIGTERM, a 30 s grace period, two pods, delay 2s.
func variantOf(label string) scenarios.Variant {
	deregister, sleep := scenarios.Duration(2*time.Second), scenarios.Duration(3*time.Second)
	sp := scenarios.Spec{Runs: 1, Replicas: 2, Target: scenarios.Target{Image: "app:planned"},
		Proxy:  scenarios.Proxy{DeregisterAfter: &deregister},
		Action: scenarios.Action{Kind: scenarios.ActionTerminate}}
	sp.Action.SetBlock(&scenarios.Terminate{Grace: scenarios.Duration(30 * time.Second), StopSignal: "SIGTERM",
		PreStop: &scenarios.PreStop{Sleep: &sleep}})
	return scenarios.Variant{Label: label, Spec: sp}
}

// TestFactsOfRecord: what the verdict says ran is what the run recorded
// (the stop signal, the grace period, the hook, the image, the pods, the
// propagation delay), not what the variant planned; without a run that
// got to its deletion, the plan.
func TestFactsOfRecord(t *testing.T) {
	term := &record.Termination{DeletedNs: 1, GraceS: 20, Signal: "SIGQUIT", Hook: &record.HookRun{Kind: "sleep", SleepMs: 4000},
		NewPod: &record.NewPod{Name: "replica-3"}}
	a := (&record.Action{Kind: record.ActionTerminate, Replica: 0, Deregister: &record.Deregistration{AfterMs: 1500}}).With(term)
	reps := []record.Replica{{Name: "replica-0", Image: "app:ran"}, {Name: "replica-1"}, {Name: "replica-2"}, {Name: "replica-3"}}
	res := &report.Result{Variants: []report.Variant{{Label: "ran", Runs: []report.Run{{Meta: record.Meta{Action: a, Replicas: reps}}}}}}
	f := factsOf([]scenarios.Variant{variantOf("ran")}, res, 2*time.Second)
	if f.StopSignal != "SIGQUIT" || f.Grace != 20*time.Second || f.Sleep != 4*time.Second || f.Image != "app:ran" || f.Pods != 3 ||
		f.Delays[0].Delay != 1500*time.Millisecond || f.Delays[0].Sleep != 4*time.Second {
		t.Errorf("facts of the record: %+v", f)
	}
	if want := "preStop sleep 4s, then SIGQUIT, SIGKILL 20s after the deletion if still running; one of 3 pods"; !strings.HasPrefix(f.Termination, want) {
		t.Errorf("termination %q, want %q...", f.Termination, want)
	}
	f = factsOf([]scenarios.Variant{variantOf("never")}, res, 2*time.Second)
	if f.StopSignal != "SIGTERM" || f.Grace != 30*time.Second || f.Sleep != 3*time.Second || f.Image != "app:planned" || f.Pods != 2 ||
		f.Delays[0].Delay != 2*time.Second || f.Delays[0].Sleep != 3*time.Second {
		t.Errorf("facts of the plan: %+v", f)
	}
}

// TestFactsOfHookNotRun: a hook the run did not run (none recorded) is
// not described as the one that held the signal back.
func TestFactsOfHookNotRun(t *testing.T) {
	a := (&record.Action{Kind: record.ActionTerminate}).With(&record.Termination{DeletedNs: 1, GraceS: 30, Signal: "SIGTERM"})
	res := &report.Result{Variants: []report.Variant{{Label: "ran", Runs: []report.Run{{Meta: record.Meta{Action: a}}}}}}
	f := factsOf([]scenarios.Variant{variantOf("ran")}, res, 2*time.Second)
	if f.Sleep != -1 || f.HookKind != "" || !strings.HasPrefix(f.Termination, "no preStop hook, then SIGTERM") {
		t.Errorf("facts %+v", f)
	}
}
