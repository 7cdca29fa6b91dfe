package queuejobs

import (
	"strconv"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs/jobsmetrics"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestJobsBudgetOfMatchesSpec: the two adapters agree: the audit of the
// events.json a run of a spec records (as the runner records it) is the
// audit of the spec. report may not import scenarios; its tests may.
func TestJobsBudgetOfMatchesSpec(t *testing.T) {
	dur := func(d time.Duration) *scenarios.Duration { v := scenarios.Duration(d); return &v }
	tests := []struct {
		name string
		edit func(*scenarios.Spec)
	}{
		{"J1 close, docker stop -t 10", func(s *scenarios.Spec) { s.Target.Mode, s.Action.Timeout = scenarios.ModeClose, dur(10*time.Second) }},
		{"J2 full, target.stop_timeout", func(s *scenarios.Spec) { s.Target.StopTimeout = dur(10 * time.Second) }},
		{"J3 drain = grace", func(s *scenarios.Spec) {
			s.Target.StopTimeout = dur(30 * time.Second)
			s.Target.Env = map[string]string{"DRAIN_MS": "30000", "WORKER_DEADLINE_MS": "60000"}
		}},
		{"J5 restart with a second signal and HTTP", func(s *scenarios.Spec) {
			s.Target.Env = map[string]string{"DRAIN_MS": "8000", "WORKER_DEADLINE_MS": "60000", "REPEAT_SIGNAL": "restart"}
			s.Action.Again = dur(5 * time.Second)
			LoadOf(s.Load).HTTPClients = 2
		}},
		{"Docker's default", func(s *scenarios.Spec) {}},
		{"a signal", func(s *scenarios.Spec) { s.Action.Kind = scenarios.ActionSignal }},
		{"mode none", func(s *scenarios.Spec) { s.Target.Mode = scenarios.ModeNone }},
	}
	for _, tt := range tests {
		s := scenarios.Defaults()
		s.Load.Kind, s.Action.Kind = LoadKind, scenarios.ActionStop
		s.Load.SetBlock(&Load{Count: 4, Steps: 20, StepMS: 1000, HTTPMS: 300})
		tt.edit(&s)
		want := scenarios.SpecBudget(&s)
		meta, reqs := recordedRun(&s)
		got := jobsmetrics.BudgetOf(meta, reqs)
		if string(got.Verdict) != string(want.Verdict) || got.Text != want.Text {
			t.Errorf("%s:\nreport    %s %q\nscenarios %s %q", tt.name, got.Verdict, got.Text, want.Verdict, want.Text)
		}
	}
}

// recordedRun is what the runner records of a run of s (the parts the
// audit reads): the action with its -t and second signal, the acted-on
// replica's env (MODE and target.env) and read-back StopTimeout, the
// ledger's jobs, a /db request when the load sends them.
func recordedRun(s *scenarios.Spec) (record.Meta, []record.Request) {
	a := &record.Action{Kind: string(s.Action.Kind), SentNs: jobsT0}
	if t := s.Action.Timeout; t != nil {
		a.StopTimeoutS = intp(int(t.D().Seconds()))
	}
	if g := s.Action.Again; g != nil {
		a.Again = &record.Step{Kind: record.StepAgain, SentNs: jobsT0 + int64(g.D())}
	}
	env := map[string]string{"MODE": string(s.Target.Mode)}
	for k, v := range s.Target.Env {
		env[k] = v
	}
	rep := record.Replica{Name: "replica-0", Env: env}
	if t := s.Target.StopTimeout; t != nil {
		rep.StopTimeoutS = intp(int(t.D().Seconds()))
	}
	j := LoadOf(s.Load)
	jobs := &record.Jobs{Inserted: j.Count, ByClass: map[string]int{record.JobCompletedOnce: j.Count}}
	for i := range j.Count {
		jobs.Entries = append(jobs.Entries, record.JobEntry{ID: int64(i + 1), Class: record.JobCompletedOnce, Steps: j.Steps, StepMS: j.StepMS})
	}
	var reqs []record.Request
	if j.HTTPClients > 0 {
		reqs = append(reqs, record.Request{Method: "GET", Path: "/db?ms=" + strconv.Itoa(j.HTTPMS)})
	}
	return record.Meta{Action: a, Replicas: []record.Replica{rep}}.With(jobs), reqs
}
