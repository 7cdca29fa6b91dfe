package jobsmetrics

import (
	"reflect"
	"testing"

	"github.com/shutdownlab/shutdownlab/budget"
	"github.com/shutdownlab/shutdownlab/record"
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
