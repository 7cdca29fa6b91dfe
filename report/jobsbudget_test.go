package report

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// The report may not import scenarios; its tests may, to hold the two
// copies of the budget rule to one answer.

// budgetGrid is every combination of the audit's inputs that matters:
// modes, grace periods (and none), variables (unset, bug values, one that
// does not parse), jobs short and long, with and without HTTP, a second
// signal.
func budgetGrid() []scenarios.BudgetInput {
	envs := []map[string]string{nil,
		{"WORKER_DEADLINE_MS": "60000"},
		{"DRAIN_MS": "8000", "WORKER_DEADLINE_MS": "60000", "REPEAT_SIGNAL": "restart"},
		{"DRAIN_MS": "30000", "PRESTOP_MS": "3000", "POOL_CLOSE": "first"},
		{"DRAIN_MS": "2000"},
		{"PRESTOP_MS": "soon"},
	}
	graces := []struct {
		ms   int
		from string
	}{{0, ""}, {10000, "action.timeout"}, {30000, "target.stop_timeout"}, {10000, "docker default"}}
	var out []scenarios.BudgetInput
	for _, mode := range []scenarios.Mode{scenarios.ModeNone, scenarios.ModeClose, scenarios.ModeFull, "weird"} {
		for _, g := range graces {
			for _, env := range envs {
				for _, job := range [][2]int{{0, 0}, {3, 500}, {20, 1000}, {60, 1000}} {
					for _, http := range []int{0, 300} {
						for _, again := range []int{0, 5000} {
							out = append(out, scenarios.BudgetInput{Mode: mode, GraceMS: g.ms, GraceFrom: g.from, Env: env,
								Steps: job[0], StepMS: job[1], HTTPMS: http, AgainMS: again})
						}
					}
				}
			}
		}
	}
	return append(out, scenarios.BudgetInput{Mode: scenarios.ModeFull, NoAction: true})
}

// TestBudgetMatchesScenarios: report.AuditBudget gives scenarios.AuditBudget's
// answer, field for field, over the whole grid.
func TestBudgetMatchesScenarios(t *testing.T) {
	for _, in := range budgetGrid() {
		want := scenarios.AuditBudget(in)
		got := AuditBudget(BudgetInput{Mode: string(in.Mode), NoAction: in.NoAction, GraceMS: in.GraceMS, GraceFrom: in.GraceFrom,
			Env: in.Env, Steps: in.Steps, StepMS: in.StepMS, HTTPMS: in.HTTPMS, AgainMS: in.AgainMS})
		mirror := Budget{Verdict: BudgetVerdict(want.Verdict), Fits: want.Fits, GraceMS: want.GraceMS, GraceFrom: want.GraceFrom,
			ExitByMS: want.ExitByMS, Bound: want.Bound, Cuts: want.Cuts, Notes: want.Notes, Text: want.Text}
		if !reflect.DeepEqual(got, mirror) {
			t.Fatalf("input %+v:\nreport    %+v\nscenarios %+v", in, got, mirror)
		}
	}
}

// TestJobsBudgetOfMatchesSpec: the audit of the events.json a run of a
// spec records (as the runner records it) is the audit of the spec.
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
			s.Load.Jobs.HTTPClients = 2
		}},
		{"Docker's default", func(s *scenarios.Spec) {}},
		{"a signal", func(s *scenarios.Spec) { s.Action.Kind = scenarios.ActionSignal }},
		{"mode none", func(s *scenarios.Spec) { s.Target.Mode = scenarios.ModeNone }},
	}
	for _, tt := range tests {
		s := scenarios.Defaults()
		s.Load.Kind, s.Action.Kind = scenarios.LoadJobs, scenarios.ActionStop
		s.Load.Jobs = &scenarios.JobsLoad{Count: 4, Steps: 20, StepMS: 1000, HTTPMS: 300}
		tt.edit(&s)
		want := scenarios.SpecBudget(&s)
		meta, reqs := recordedRun(&s)
		got := JobsBudgetOf(meta, reqs)
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
	j := s.Load.Jobs
	jobs := &record.Jobs{Inserted: j.Count, ByClass: map[string]int{record.JobCompletedOnce: j.Count}}
	for i := range j.Count {
		jobs.Entries = append(jobs.Entries, record.JobEntry{ID: int64(i + 1), Class: record.JobCompletedOnce, Steps: j.Steps, StepMS: j.StepMS})
	}
	var reqs []record.Request
	if j.HTTPClients > 0 {
		reqs = append(reqs, record.Request{Method: "GET", Path: "/db?ms=" + strconv.Itoa(j.HTTPMS)})
	}
	return record.Meta{Action: a, Replicas: []record.Replica{rep}, Jobs: jobs}, reqs
}
