package jobs

import (
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// DefaultRescueAfter is River's RescueStuckJobsAfter when a client sets
// none (ClientOptions.RescueStuckJobsAfter 0).
const DefaultRescueAfter = time.Hour

// Record is the ledger as a run's record keeps it (record.Jobs, in
// events.json): the count of every class (zeros included), the step
// flags, the problems, and every job with its runs and the times their
// steps were applied, as Unix nanoseconds. rescueAfter is the workers'
// RescueStuckJobsAfter (0: River's default, DefaultRescueAfter).
func (l Ledger) Record(rescueAfter time.Duration) record.Jobs {
	if rescueAfter <= 0 {
		rescueAfter = DefaultRescueAfter
	}
	j := record.Jobs{
		Inserted: l.Inserted, ByClass: make(map[string]int, len(Classes)),
		StepsTwice: l.StepsTwice, ExtraEffects: l.ExtraEffects, StepsMissing: l.StepsMissing,
		RescueAfterMs: float64(rescueAfter) / float64(time.Millisecond),
		Problems:      l.Problems(), Entries: make([]record.JobEntry, 0, len(l.Entries)),
	}
	for _, c := range Classes {
		j.ByClass[string(c)] = l.Count[c]
	}
	for _, e := range l.Entries {
		j.Entries = append(j.Entries, entryRecord(e))
	}
	return j
}

// entryRecord is one job's ledger line as recorded.
func entryRecord(e Entry) record.JobEntry {
	r := record.JobEntry{
		ID: e.ID, Class: string(e.Class), State: e.State, Attempt: e.Attempt, AttemptedBy: e.AttemptedBy,
		Steps: e.Args.Steps, StepMS: e.Args.StepMS, Idempotent: e.Args.Idempotent,
		InsertedNs: unixNs(e.Created), FinalizedNs: unixNs(e.Finalized),
		Twice: e.Twice, Missing: e.Missing, Extra: e.Extra,
	}
	for _, run := range e.Runs {
		rr := record.JobRun{Client: run.ClientID, Attempt: run.Attempt, StartedNs: unixNs(run.Started),
			EndedNs: unixNs(run.Ended), Outcome: run.Outcome}
		for _, st := range run.Steps {
			rr.StepsNs = append(rr.StepsNs, record.JobStepTime{Step: st.Step, AppliedNs: unixNs(st.Applied)})
		}
		r.Runs = append(r.Runs, rr)
	}
	return r
}

// unixNs is t in Unix nanoseconds, 0 for the zero time.
func unixNs(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
