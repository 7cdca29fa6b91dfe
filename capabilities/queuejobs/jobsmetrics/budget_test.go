package jobsmetrics

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/budget"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// jobsT0 is the action's send time of the synthetic runs.
const jobsT0 = int64(1_900_000_000_000_000_000)

func intp(n int) *int { return &n }

// TestBudgetInputOf: the input the audit reads from a saved run: the
// acted-on replica's mode (MODE, else its up event) and env, the grace
// period (the action's -t, else the replica's StopTimeout, else Docker's
// default; none for a signal), the longest job of the ledger, the
// longest /db request, and the signal again.
func TestBudgetInputOf(t *testing.T) {
	env := map[string]string{"MODE": "full", "DRAIN_MS": "8000"}
	stop := func(edit func(a *record.Action, r *record.Replica)) record.Meta {
		a := &record.Action{Kind: record.ActionStop, SentNs: jobsT0, Replica: 1}
		r := record.Replica{Name: "replica-1", Env: env}
		if edit != nil {
			edit(a, &r)
		}
		return record.Meta{Action: a, Replicas: []record.Replica{{Name: "replica-0", Env: map[string]string{"MODE": "none"}}, r}}
	}
	jobs := &record.Jobs{Entries: []record.JobEntry{{ID: 1, Steps: 3, StepMS: 500}, {ID: 2, Steps: 20, StepMS: 1000}, {ID: 3, Steps: 2, StepMS: 100}}}
	reqs := []record.Request{{Path: "/db?ms=250"}, {Path: "/db"}, {Path: "/slow?ms=9000"}}
	tests := []struct {
		name string
		meta record.Meta
		reqs []record.Request
		want budget.Input
	}{
		{"no action", record.Meta{Replicas: []record.Replica{{Env: env}}}, nil, budget.Input{NoAction: true}},
		{"stop with -t", stop(func(a *record.Action, r *record.Replica) { a.StopTimeoutS, r.StopTimeoutS = intp(7), intp(30) }), nil,
			budget.Input{Mode: "full", Env: env, GraceMS: 7000, GraceFrom: "action.timeout"}},
		{"stop with the replica's StopTimeout", stop(func(_ *record.Action, r *record.Replica) { r.StopTimeoutS = intp(30) }), nil,
			budget.Input{Mode: "full", Env: env, GraceMS: 30000, GraceFrom: "target.stop_timeout"}},
		{"stop with Docker's default", stop(nil), nil, budget.Input{Mode: "full", Env: env, GraceMS: 10000, GraceFrom: "docker default"}},
		{"a signal has no grace", stop(func(a *record.Action, _ *record.Replica) { a.Kind = record.ActionSignal }), nil,
			budget.Input{Mode: "full", Env: env}},
		{"the mode of the up event", stop(func(_ *record.Action, r *record.Replica) {
			r.Env = nil
			r.Events = []record.Event{{Event: record.EventUp, Mode: "close"}}
		}), nil, budget.Input{Mode: "close", GraceMS: 10000, GraceFrom: "docker default"}},
		{"the longest job, the longest /db request, the signal again", func() record.Meta {
			m := stop(func(a *record.Action, _ *record.Replica) {
				a.Again = &record.Step{Kind: record.StepAgain, SentNs: jobsT0 + 5_000_400_000}
			})
			m.SetPart(jobs)
			return m
		}(), reqs, budget.Input{Mode: "full", Env: env, GraceMS: 10000, GraceFrom: "docker default", Steps: 20, StepMS: 1000, HTTPMS: 300, AgainMS: 5000}},
		{"a signal again never sent", stop(func(a *record.Action, _ *record.Replica) { a.Again = &record.Step{Kind: record.StepAgain} }), nil,
			budget.Input{Mode: "full", Env: env, GraceMS: 10000, GraceFrom: "docker default"}},
		{"no acted-on replica", stop(func(a *record.Action, _ *record.Replica) { a.Replica = 5 }), reqs[:1], budget.Input{HTTPMS: 250}},
	}
	for _, tt := range tests {
		if got := budgetInputOf(tt.meta, tt.reqs); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

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
			s.Load.Jobs().HTTPClients = 2
		}},
		{"Docker's default", func(s *scenarios.Spec) {}},
		{"a signal", func(s *scenarios.Spec) { s.Action.Kind = scenarios.ActionSignal }},
		{"mode none", func(s *scenarios.Spec) { s.Target.Mode = scenarios.ModeNone }},
	}
	for _, tt := range tests {
		s := scenarios.Defaults()
		s.Load.Kind, s.Action.Kind = scenarios.LoadJobs, scenarios.ActionStop
		s.Load.SetBlock(&scenarios.JobsLoad{Count: 4, Steps: 20, StepMS: 1000, HTTPMS: 300})
		tt.edit(&s)
		want := scenarios.SpecBudget(&s)
		meta, reqs := recordedRun(&s)
		got := BudgetOf(meta, reqs)
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
	j := s.Load.Jobs()
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

func TestLongestDBRequestMs(t *testing.T) {
	reqs := []record.Request{{Path: "/slow?ms=900"}, {Path: "/db?ms=250"}, {Path: "/db"}, {Path: "/db?ms=x"}, {Path: "/dbx?ms=5000"}}
	if got := longestDBRequestMs(reqs); got != 300 {
		t.Errorf("got %d, want 300 (the default of /db, over 250; /slow and /dbx are not /db)", got)
	}
	if got := longestDBRequestMs(reqs[:2]); got != 250 {
		t.Errorf("got %d, want 250", got)
	}
	if got := longestDBRequestMs(nil); got != 0 {
		t.Errorf("got %d without requests", got)
	}
}
