package jobs

import (
	"slices"
	"strings"
	"testing"
)

func steps(n int, counts ...int) map[int]int {
	m := map[int]int{}
	for i := 1; i <= n; i++ {
		c := 1
		if i-1 < len(counts) {
			c = counts[i-1]
		}
		if c > 0 {
			m[i] = c
		}
	}
	return m
}

func runs(clients ...string) []Run {
	var r []Run
	for _, c := range clients {
		r = append(r, Run{ClientID: c, Attempt: 1, Outcome: "x"})
	}
	return r
}

func job(id int64, state string, attempt int, r []Run, eff map[int]int) JobFacts {
	return JobFacts{ID: id, State: state, Attempt: attempt, Args: StepArgs{Steps: 3, StepMS: 10}, Runs: r, Effects: eff}
}

func TestClassifyJobs(t *testing.T) {
	tests := []struct {
		name    string
		f       JobFacts
		class   Class
		twice   []int
		missing []int
		extra   int
	}{
		{"completed once", job(1, "completed", 1, runs("a"), steps(3)), CompletedOnce, nil, nil, 0},
		{"handed over, river attempt not counted", job(1, "completed", 1, runs("a", "b"), steps(3)), CompletedHandover, nil, nil, 0},
		{"rescued: attempt 2", job(1, "completed", 2, runs("a"), steps(3)), CompletedHandover, nil, nil, 0},
		{"non-idempotent retry applied steps 1-2 twice", job(1, "completed", 1, runs("a", "b"), steps(3, 2, 2, 1)), CompletedHandover, []int{1, 2}, nil, 2},
		{"deliberately lost step 2", job(1, "completed", 1, runs("a"), steps(3, 1, 0, 1)), CompletedOnce, nil, []int{2}, 0},
		{"killed mid-job: still running", job(1, "running", 1, runs("a"), steps(3, 1, 0, 0)), Running, nil, nil, 0},
		{"interrupted, back in queue", job(1, "available", 0, runs("a"), steps(3, 1, 0, 0)), Waiting, nil, nil, 0},
		{"retryable after rescue", job(1, "retryable", 1, runs("a"), nil), Waiting, nil, nil, 0},
		{"scheduled", job(1, "scheduled", 0, nil, nil), Waiting, nil, nil, 0},
		{"discarded: partial steps are not missing", job(1, "discarded", 25, runs("a"), steps(3, 1, 0, 0)), Discarded, nil, nil, 0},
		{"cancelled", job(1, "cancelled", 1, runs("a"), nil), Cancelled, nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Classify([]int64{1}, []JobFacts{tt.f})
			if err != nil {
				t.Fatal(err)
			}
			e := l.Entries[0]
			if e.Class != tt.class || !slices.Equal(e.Twice, tt.twice) || !slices.Equal(e.Missing, tt.missing) || e.Extra != tt.extra {
				t.Errorf("got class %s twice %v missing %v extra %d; want %s %v %v %d",
					e.Class, e.Twice, e.Missing, e.Extra, tt.class, tt.twice, tt.missing, tt.extra)
			}
			if l.Count[tt.class] != 1 || l.Inserted != 1 {
				t.Errorf("counts %v, inserted %d", l.Count, l.Inserted)
			}
		})
	}
}

// TestLedgerBatch classifies a mixed batch: the counts add up, the lost
// step is flagged as a problem, the double-applied steps are counted.
func TestLedgerBatch(t *testing.T) {
	facts := []JobFacts{
		job(1, "completed", 1, runs("a"), steps(3)),
		job(2, "completed", 1, runs("a", "b"), steps(3, 2, 1, 1)),
		job(3, "completed", 1, runs("b"), steps(3, 1, 1, 0)), // lost step 3
		job(4, "running", 1, runs("a"), steps(3, 1, 0, 0)),
		job(6, "discarded", 3, runs("a", "a", "a"), nil),
	}
	l, err := Classify([]int64{1, 2, 3, 4, 5, 6}, facts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Class]int{CompletedOnce: 2, CompletedHandover: 1, Running: 1, NotFound: 1, Discarded: 1}
	for _, c := range Classes {
		if l.Count[c] != want[c] {
			t.Errorf("%s = %d, want %d", c, l.Count[c], want[c])
		}
	}
	if l.StepsTwice != 1 || l.ExtraEffects != 1 || l.StepsMissing != 1 {
		t.Errorf("twice %d extra %d missing %d, want 1 1 1", l.StepsTwice, l.ExtraEffects, l.StepsMissing)
	}
	p := strings.Join(l.Problems(), "; ")
	if !strings.Contains(p, "job 3: completed without steps [3]") || !strings.Contains(p, "job 5: inserted but not in river_job") {
		t.Errorf("problems = %q", p)
	}
	if got := l.String(); !strings.Contains(got, "6 inserted: completed_once 2, completed_handover 1") {
		t.Errorf("String() = %q", got)
	}
}

func TestClassifyErrors(t *testing.T) {
	ok := job(1, "completed", 1, runs("a"), steps(3))
	tests := []struct {
		name     string
		inserted []int64
		facts    []JobFacts
		want     string
	}{
		{"inserted twice", []int64{1, 1}, []JobFacts{ok}, "job 1 inserted twice"},
		{"fact twice", []int64{1}, []JobFacts{ok, ok}, "job 1 appears twice"},
		{"not inserted", []int64{}, []JobFacts{ok}, "job 1 is in the database but was not inserted"},
		{"unknown state", []int64{1}, []JobFacts{job(1, "weird", 1, nil, nil)}, `unknown state "weird"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Classify(tt.inserted, tt.facts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestLedgerCheckFailsWhenCountsDoNotAddUp(t *testing.T) {
	l := Ledger{Inserted: 3, Count: map[Class]int{CompletedOnce: 2}, Entries: make([]Entry, 2)}
	if err := l.Check(); err == nil || !strings.Contains(err.Error(), "add up to 2 (2 entries), but 3 jobs were inserted") {
		t.Errorf("Check() = %v", err)
	}
}

func TestStepArgsValidate(t *testing.T) {
	for _, a := range []StepArgs{{Steps: 0}, {Steps: 1, StepMS: -1}} {
		if a.Validate() == nil {
			t.Errorf("%+v: no error", a)
		}
	}
	if err := (StepArgs{Steps: 1}).Validate(); err != nil {
		t.Error(err)
	}
}
