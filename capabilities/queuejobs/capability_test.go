package queuejobs

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/internal/sectiontest"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// TestMain installs this capability, and only it, into report: the tests
// read its rows, part and headline as a program with it in its list does,
// beside the core's.
func TestMain(m *testing.M) {
	report.Install(Capability)
	os.Exit(m.Run())
}

func intp(n int) *int { return &n }

// jobsT0 is the action's send time of the synthetic jobs runs.
const jobsT0 = int64(1_900_000_000_000_000_000)

// jat is jobsT0 plus ms.
func jat(ms float64) int64 { return jobsT0 + int64(ms*1e6) }

// jrun is a run of a job on client from start to end (0: never ended)
// with outcome and steps applied at the given ms.
func jrun(client string, start, end float64, outcome string, steps ...float64) record.JobRun {
	r := record.JobRun{Client: client, Attempt: 1, StartedNs: jat(start), Outcome: outcome}
	if end != 0 {
		r.EndedNs = jat(end)
	}
	for i, s := range steps {
		r.StepsNs = append(r.StepsNs, record.JobStepTime{Step: i + 1, AppliedNs: jat(s)})
	}
	return r
}

// Client ids of the two replicas (their INSTANCE).
const (
	rep0 = "replica-0:8080"
	rep1 = "replica-1:8080"
)

// jobsMeta is a full-mode run of two replicas, replica-0 stopped (grace
// 10 s) at jobsT0 and exited at +6 s, with the ledger entries given.
func jobsMeta(entries ...record.JobEntry) record.Meta {
	ten := 10
	j := &record.Jobs{Inserted: len(entries), ByClass: map[string]int{}, RescueAfterMs: 3600000, Entries: entries}
	for _, e := range entries {
		j.ByClass[e.Class]++
		if len(e.Twice) > 0 {
			j.StepsTwice++
		}
		j.ExtraEffects += e.Extra
		if len(e.Missing) > 0 {
			j.StepsMissing++
		}
	}
	return record.Meta{Valid: true,
		Action: &record.Action{Kind: record.ActionStop, StopTimeoutS: &ten, SentNs: jobsT0, ReturnedNs: jat(6000)},
		Replicas: []record.Replica{
			{Name: "replica-0", Exited: true, ExitCode: intp(0), ExitedNs: jat(6000),
				Env: map[string]string{"MODE": "full", "INSTANCE": rep0},
				Events: []record.Event{{Event: record.EventUp, Mode: "full"}, {Event: record.EventWorkerUp}, {Event: record.EventSignal, TimeNs: jat(1)},
					{Event: record.EventWorkerStopped, TimeNs: jat(5200), JobsCut: intp(1), JobsRunning: intp(0)},
					{Event: record.EventExit, TimeNs: jat(5300), Code: intp(0)}}},
			{Name: "replica-1", Env: map[string]string{"MODE": "full", "INSTANCE": rep1}},
		}}.With(j)
}

// handedOver is a job replica-0 stopped at its checkpoint before step 3
// at +5100 and replica-1 resumed at +5600 and completed.
func handedOver(id int64) record.JobEntry {
	return record.JobEntry{ID: id, Class: record.JobCompletedHandover, State: "completed", Steps: 4, StepMS: 1000,
		Runs: []record.JobRun{
			jrun(rep0, -1000, 5100, "stopped before step 3: context canceled", 0, 1000),
			jrun(rep1, 5600, 7700, "completed", 6600, 7600),
		}}
}

// once is a job replica-1 completed alone.
func once(id int64) record.JobEntry {
	return record.JobEntry{ID: id, Class: record.JobCompletedOnce, State: "completed", Steps: 4, StepMS: 1000,
		Runs: []record.JobRun{jrun(rep1, -3000, 1000, "completed", -2000, -1000, 0, 1000)}}
}

func TestJobsMetrics(t *testing.T) {
	tests := []struct {
		name  string
		meta  func() record.Meta
		want  map[string]any // metric -> number, or nil for null
		notes []string       // substrings of some note
	}{
		{"a hand-over", func() record.Meta { return jobsMeta(once(1), handedOver(2)) }, map[string]any{
			"jobs_inserted": 2, "jobs_completed_once": 1, "jobs_completed_handover": 1, "jobs_running": 0,
			"job_handover_ms": 500, "jobs_cut": 1, "jobs_abandoned": 0, "rescue_due_ms": nil, "final_log": 1,
			"budget_fits": 1, "jobs_steps_twice": 0, "jobs_steps_missing": 0}, nil},
		{"a job never ended: hand-over from the exit, abandoned, rescue due", func() record.Meta {
			stuck := record.JobEntry{ID: 3, Class: record.JobRunning, State: "running", Steps: 4, StepMS: 1000,
				Runs: []record.JobRun{jrun(rep0, 800, 0, "", 1800)}}
			resumed := record.JobEntry{ID: 4, Class: record.JobCompletedHandover, State: "completed", Steps: 4, StepMS: 1000,
				Twice: []int{1}, Extra: 1,
				Runs: []record.JobRun{jrun(rep0, 500, 0, "", 1500), jrun(rep1, 12000, 16000, "completed", 13000, 14000, 15000, 16000)}}
			m := jobsMeta(stuck, resumed, handedOver(5))
			rep := &m.Replicas[0]
			rep.ExitCode, rep.ExitedNs = intp(137), jat(10000)
			rep.Events = rep.Events[:3] // killed: no worker_stopped, no exit
			return m
		}, map[string]any{
			"jobs_running": 1, "jobs_completed_handover": 2, "job_handover_ms": 2000, // job 4: from the exit (+10 s) to +12 s; job 5: 500
			"jobs_abandoned": 2, "rescue_due_ms": 800 + 3600000, "jobs_cut": nil, "final_log": 0,
			"jobs_steps_twice": 1, "jobs_extra_effects": 1}, nil},
		{"a lost step flagged", func() record.Meta {
			lost := once(6)
			lost.Missing = []int{3}
			lost.Runs[0].StepsNs = append(lost.Runs[0].StepsNs[:2], lost.Runs[0].StepsNs[3])
			m := jobsMeta(lost)
			m.Jobs().Problems = []string{"job 6 completed without step 3"}
			return m
		}, map[string]any{"jobs_steps_missing": 1, "jobs_completed_once": 1, "job_handover_ms": nil}, []string{"job 6 completed without step 3"}},
		{"classes that do not add up", func() record.Meta {
			m := jobsMeta(once(7))
			m.Jobs().Inserted = 2
			return m
		}, map[string]any{"jobs_inserted": 2}, []string{"add up to 1, not the 2 jobs inserted"}},
		{"a signal action: no grace, budget null", func() record.Meta {
			m := jobsMeta(once(8))
			m.Action.Kind, m.Action.StopTimeoutS, m.Action.Signal = record.ActionSignal, nil, "SIGTERM"
			return m
		}, map[string]any{"budget_fits": nil}, nil},
		{"mode none: no shutdown, budget false", func() record.Meta {
			m := jobsMeta(once(9))
			m.Replicas[0].Env["MODE"] = "none"
			return m
		}, map[string]any{"budget_fits": 0}, nil},
		{"replicas matched by name without INSTANCE", func() record.Meta {
			m := jobsMeta(handedOver(10))
			m.Replicas[0].Env, m.Replicas[1].Env = nil, nil
			return m
		}, map[string]any{"job_handover_ms": 500, "budget_fits": 1}, nil}, // MODE from the up event
		{"no lifecycle log", func() record.Meta {
			m := jobsMeta(handedOver(11))
			m.Replicas[0].Events = nil
			return m
		}, map[string]any{"jobs_cut": nil, "final_log": nil, "job_handover_ms": 500}, nil},
		{"no action: no rescue time", func() record.Meta {
			m := jobsMeta(record.JobEntry{ID: 12, Class: record.JobRunning, Runs: []record.JobRun{jrun(rep0, 0, 0, "")}})
			m.Action = nil
			return m
		}, map[string]any{"rescue_due_ms": nil, "jobs_abandoned": 1, "budget_fits": nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := report.Compute(tt.meta(), nil)
			if Of(&m) == nil {
				t.Fatal("no job metrics")
			}
			for name, want := range tt.want {
				v, ok := m.Value(name)
				switch {
				case !ok:
					t.Errorf("%s: unknown metric", name)
				case want == nil && !v.Null:
					t.Errorf("%s = %g, want null", name, v.V)
				case want != nil && (v.Null || v.V != toF(want)):
					t.Errorf("%s = %+v, want %v", name, v, want)
				}
			}
			for _, n := range tt.notes {
				if !strings.Contains(strings.Join(m.Notes, "\n"), n) {
					t.Errorf("no note with %q in %q", n, m.Notes)
				}
			}
		})
	}
}

func toF(x any) float64 {
	switch v := x.(type) {
	case int:
		return float64(v)
	case float64:
		return v
	}
	panic(x)
}

// TestJobsMetricsAbsent: a run without a ledger has no job metrics: every
// row is null, none is in its JSON, and its table has no job row.
func TestJobsMetricsAbsent(t *testing.T) {
	m := report.Compute(record.Meta{Valid: true, Action: &record.Action{Kind: record.ActionSignal, SentNs: jobsT0},
		Replicas: []record.Replica{{Name: "replica-0", Events: []record.Event{{Event: record.EventExit}}}}}, nil)
	if Of(&m) != nil {
		t.Fatalf("job metrics in a run without a ledger: %+v", Of(&m))
	}
	for _, d := range rows {
		if v := d.Get(&m); !v.Null {
			t.Errorf("%s = %+v, want null", d.Name, v)
		}
		if slicesHas(report.Rows([]*report.Metrics{&m}), d.Name) {
			t.Errorf("%s has a row without a ledger", d.Name)
		}
	}
	b, _ := json.Marshal(m)
	if strings.Contains(string(b), "jobs_") || strings.Contains(string(b), "budget_fits") {
		t.Errorf("job keys in the JSON of a run without a ledger: %s", b)
	}
	// With a ledger, every row is there, even when its values are null.
	j := report.Compute(jobsMeta(), nil)
	for _, d := range rows {
		if !slicesHas(report.Rows([]*report.Metrics{&j}), d.Name) {
			t.Errorf("%s has no row in a jobs run", d.Name)
		}
	}
}

func slicesHas(ds []report.MetricDef, name string) bool {
	for _, d := range ds {
		if d.Name == name {
			return true
		}
	}
	return false
}

// TestJobsFixtureShape checks the jobs fixture (report/testdata, written
// by internal/fixture) says what the goldens claim: close is killed with its jobs cut (left running, or rescued and
// applied twice), full hands its jobs back and exits by itself (the Jobs
// section's test checks report.md says so).
func TestJobsFixtureShape(t *testing.T) {
	res := sectiontest.LoadFixture(t, fixture.JobsDir)
	if len(res.Variants) != 2 || res.Scenario != "fixture-jobs" {
		t.Fatalf("variants/scenario = %d %q", len(res.Variants), res.Scenario)
	}
	closeV, fullV := &res.Variants[0], &res.Variants[1]
	for _, r := range append(closeV.Runs, fullV.Runs...) {
		notes := strings.Join(r.Metrics.Notes, "\n")
		if !r.Valid || Of(&r.Metrics) == nil || strings.Contains(notes, "jobs ledger") != (r.Meta.Variant == "mode=full" && r.Meta.Run == 2) {
			t.Errorf("%s run %d: valid %v (%s), notes %q", r.Meta.Variant, r.Meta.Run, r.Valid, r.Reason, r.Metrics.Notes)
		}
	}
	c1, c2 := Of(&closeV.Runs[0].Metrics), Of(&closeV.Runs[1].Metrics)
	if c1.JobsRunning != 2 || c1.JobsAbandoned != 2 || c1.FinalLog || *c1.BudgetFits || c1.RescueDueMs == nil || c1.JobHandoverMs != nil {
		t.Errorf("close run 1: %+v", c1)
	}
	if c2.JobsCompletedHandover != 2 || c2.JobsStepsTwice != 2 || c2.JobsExtraEffects != 10 || *c2.JobHandoverMs != 30000 {
		t.Errorf("close run 2: %+v", c2)
	}
	f1, f2 := Of(&fullV.Runs[0].Metrics), Of(&fullV.Runs[1].Metrics)
	if f1.JobsCompletedHandover != 2 || *f1.JobsCut != 2 || !f1.FinalLog || !*f1.BudgetFits || f1.JobsStepsTwice != 0 || f1.JobsAbandoned != 0 {
		t.Errorf("full run 1: %+v", f1)
	}
	if f2.JobsStepsMissing != 1 {
		t.Errorf("full run 2: the lost step is not flagged: %+v", f2)
	}
}
