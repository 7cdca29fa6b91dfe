package jobs

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// TestClassesAreRecordClasses: the ledger's class names are record's, in
// the same order (Ledger.Record writes them as they are).
func TestClassesAreRecordClasses(t *testing.T) {
	var names []string
	for _, c := range Classes {
		names = append(names, string(c))
	}
	if !slices.Equal(names, record.JobClasses) {
		t.Errorf("jobs.Classes %v, record.JobClasses %v", names, record.JobClasses)
	}
}

var t0 = time.Unix(1_800_000_000, 0)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// TestAddEffects: effect rows count per step and land in the run that
// wrote them, in the order applied; a row of an unknown run or job
// counts only where it can.
func TestAddEffects(t *testing.T) {
	tests := []struct {
		name    string
		runs    []Run
		effects []Effect
		counts  map[int]int
		steps   [][]int // per run, the steps in order
	}{
		{"one run, all steps", []Run{{ID: 7}}, []Effect{{1, 7, 1, at(10)}, {1, 7, 2, at(20)}},
			map[int]int{1: 1, 2: 1}, [][]int{{1, 2}}},
		{"hand-over, non-idempotent: steps 1-2 twice", []Run{{ID: 7}, {ID: 9}},
			[]Effect{{1, 7, 1, at(10)}, {1, 7, 2, at(20)}, {1, 9, 1, at(50)}, {1, 9, 2, at(60)}, {1, 9, 3, at(70)}},
			map[int]int{1: 2, 2: 2, 3: 1}, [][]int{{1, 2}, {1, 2, 3}}},
		{"hand-over, idempotent: resumed at 3", []Run{{ID: 7}, {ID: 9}},
			[]Effect{{1, 7, 1, at(10)}, {1, 7, 2, at(20)}, {1, 9, 3, at(70)}},
			map[int]int{1: 1, 2: 1, 3: 1}, [][]int{{1, 2}, {3}}},
		{"row of an unknown run still counts", []Run{{ID: 7}}, []Effect{{1, 8, 1, at(10)}},
			map[int]int{1: 1}, [][]int{nil}},
		{"row of another job is ignored", []Run{{ID: 7}}, []Effect{{2, 7, 1, at(10)}},
			map[int]int{}, [][]int{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &JobFacts{ID: 1, Runs: tt.runs, Effects: map[int]int{}}
			addEffects(map[int64]*JobFacts{1: f}, tt.effects)
			if !reflect.DeepEqual(f.Effects, tt.counts) {
				t.Errorf("counts %v, want %v", f.Effects, tt.counts)
			}
			for i, r := range f.Runs {
				var got []int
				for _, st := range r.Steps {
					got = append(got, st.Step)
				}
				if !slices.Equal(got, tt.steps[i]) {
					t.Errorf("run %d steps %v, want %v", r.ID, got, tt.steps[i])
				}
			}
		})
	}
}

// TestLedgerRecord: the recorded ledger holds every class (zeros too),
// the flags and problems, and each job's runs and step times in Unix ns;
// times never set stay 0.
func TestLedgerRecord(t *testing.T) {
	handed := JobFacts{ID: 1, State: "completed", Attempt: 1, AttemptedBy: []string{"a", "b"},
		Args: StepArgs{Steps: 2, StepMS: 10}, Created: at(0), Finalized: at(90),
		Runs: []Run{
			{ID: 7, ClientID: "a", Attempt: 1, Started: at(5), Ended: at(25), Outcome: "stopped before step 2: x",
				Steps: []StepTime{{1, at(20)}}},
			{ID: 9, ClientID: "b", Attempt: 1, Started: at(60), Ended: at(85), Outcome: OutcomeCompleted,
				Steps: []StepTime{{1, at(70)}, {2, at(80)}}},
		},
		Effects: map[int]int{1: 2, 2: 1}}
	stuck := JobFacts{ID: 2, State: "running", Attempt: 1, Args: StepArgs{Steps: 2, StepMS: 10, Idempotent: true},
		Created: at(0), Runs: []Run{{ID: 8, ClientID: "a", Attempt: 1, Started: at(6)}}, Effects: map[int]int{}}
	l, err := Classify([]int64{1, 2, 3}, []JobFacts{handed, stuck})
	if err != nil {
		t.Fatal(err)
	}
	j := l.Record(0)
	wantClasses := map[string]int{record.JobCompletedOnce: 0, record.JobCompletedHandover: 1, record.JobRunning: 1,
		record.JobWaiting: 0, record.JobDiscarded: 0, record.JobCancelled: 0, record.JobNotFound: 1}
	if j.Inserted != 3 || !reflect.DeepEqual(j.ByClass, wantClasses) {
		t.Errorf("inserted %d by class %v, want 3 %v", j.Inserted, j.ByClass, wantClasses)
	}
	if j.StepsTwice != 1 || j.ExtraEffects != 1 || j.StepsMissing != 0 || j.RescueAfterMs != 3.6e6 {
		t.Errorf("twice %d extra %d missing %d rescue %v", j.StepsTwice, j.ExtraEffects, j.StepsMissing, j.RescueAfterMs)
	}
	if len(j.Problems) != 1 || j.Problems[0] != "job 3: inserted but not in river_job" {
		t.Errorf("problems %q", j.Problems)
	}
	ns := func(ms int) int64 { return at(ms).UnixNano() }
	want := record.JobEntry{ID: 1, Class: record.JobCompletedHandover, State: "completed", Attempt: 1,
		AttemptedBy: []string{"a", "b"}, Steps: 2, StepMS: 10, InsertedNs: ns(0), FinalizedNs: ns(90),
		Runs: []record.JobRun{
			{Client: "a", Attempt: 1, StartedNs: ns(5), EndedNs: ns(25), Outcome: "stopped before step 2: x",
				StepsNs: []record.JobStepTime{{Step: 1, AppliedNs: ns(20)}}},
			{Client: "b", Attempt: 1, StartedNs: ns(60), EndedNs: ns(85), Outcome: OutcomeCompleted,
				StepsNs: []record.JobStepTime{{Step: 1, AppliedNs: ns(70)}, {Step: 2, AppliedNs: ns(80)}}},
		},
		Twice: []int{1}, Extra: 1}
	if !reflect.DeepEqual(j.Entries[0], want) {
		t.Errorf("entry 1\n %+v\nwant\n %+v", j.Entries[0], want)
	}
	if e := j.Entries[1]; e.FinalizedNs != 0 || e.Runs[0].EndedNs != 0 || e.Runs[0].StepsNs != nil || !e.Idempotent {
		t.Errorf("stuck job %+v: want no finalize, no end, no steps", e)
	}
	if e := j.Entries[2]; e.Class != record.JobNotFound || e.InsertedNs != 0 || e.Runs != nil {
		t.Errorf("missing job %+v", e)
	}
	if got := l.Record(2 * time.Second).RescueAfterMs; got != 2000 {
		t.Errorf("rescue after %v ms, want 2000", got)
	}
}
