package queuejobs

import (
	"reflect"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// TestJobsTimeline: the rows are the acted-on replica's jobs; a run that
// never ended lasts to its replica's exit; a run on another replica after
// it is a resumption; a step applied a second time is "again"; the
// markers are the action, the signal, the grace's end and the exit.
func TestJobsTimeline(t *testing.T) {
	m := fixture.JobsMeta("close", 2)
	d, err := jobsTimeline(m, maxJobRows)
	if err != nil {
		t.Fatal(err)
	}
	if d.Total != 2 || len(d.Rows) != 2 || d.Rows[0].ID != 1 || d.Acted != 0 || !reflect.DeepEqual(d.Replicas, []string{"replica-0", "replica-1"}) {
		t.Fatalf("rows %+v, total %d, acted %d, replicas %v", d.Rows, d.Total, d.Acted, d.Replicas)
	}
	cut, rescued := d.Rows[0].Runs[0], d.Rows[0].Runs[1]
	if !cut.Open || cut.End != 10 || cut.Replica != 0 || len(cut.Steps) != 5 || len(cut.Again) != 0 || cut.Resumed {
		t.Errorf("the cut run: %+v", cut)
	}
	if rescued.Open || !rescued.Resumed || rescued.Replica != 1 || len(rescued.Steps) != 1 || len(rescued.Again) != 5 || rescued.Outcome != "completed" {
		t.Errorf("the rescued run: %+v", rescued)
	}
	var names []string
	for _, mk := range d.Markers {
		names = append(names, mk.Name)
	}
	if want := []string{"t0", "t", jobsMarkGrace, report.PhaseExit}; !reflect.DeepEqual(names, want) {
		t.Errorf("markers %v, want %v", names, want)
	}
	if mk := d.Markers[2]; mk.X != 10 || mk.Label != "grace ends (action.timeout) +10000 ms" {
		t.Errorf("grace marker %+v", mk)
	}

	full, _ := jobsTimeline(fixture.JobsMeta("full", 1), maxJobRows)
	if r := full.Rows[1].Runs[0]; r.Open || !isStopped(r.Outcome) || len(r.Steps) != 4 {
		t.Errorf("a handed-back run: %+v", r)
	}
	if capped, _ := jobsTimeline(m, 1); len(capped.Rows) != 1 || capped.Total != 2 {
		t.Errorf("capped at 1 row: %d rows of %d", len(capped.Rows), capped.Total)
	}
	// With a second signal, it is marked.
	m.Action.Again = &record.Step{Kind: record.StepAgain, SentNs: m.Action.SentNs + 5e9}
	if d, _ := jobsTimeline(m, 1); d.Markers[2].Name != jobsMarkAgain || d.Markers[2].X != 5 {
		t.Errorf("markers with a second signal: %+v", d.Markers)
	}
	// Without an action, x counts from the first run's start.
	m.Action = nil
	if d, err := jobsTimeline(m, 1); err != nil || d.Markers != nil || d.Rows[0].Runs[0].Start != 0 {
		t.Errorf("no action: %v, markers %v, first start %v", err, d.Markers, d.Rows[0].Runs[0].Start)
	}
}

func TestJobsTimelineErrors(t *testing.T) {
	only1 := fixture.JobsMeta("full", 1)
	only1.Jobs().Entries = only1.Jobs().Entries[2:] // replica-1's jobs only
	for name, m := range map[string]record.Meta{
		"no ledger":            {Replicas: []record.Replica{{Name: "replica-0"}}},
		"no replica":           record.Meta{}.With(&record.Jobs{}),
		"the replica ran none": only1,
	} {
		if _, err := jobsTimeline(m, maxJobRows); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := renderJobs(jobsPlotData{}, "x"); err == nil {
		t.Errorf("rendered an empty timeline")
	}
}
