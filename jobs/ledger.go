package jobs

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Class is what became of one inserted job. Every inserted job is in
// exactly one class.
type Class string

// The classes, from River's job state and the harness's run rows.
const (
	// CompletedOnce: completed by a single execution.
	CompletedOnce Class = "completed_once"
	// CompletedHandover: completed after more than one execution (River
	// attempt > 1, or more than one run row: River does not count an
	// attempt interrupted by a client's stop).
	CompletedHandover Class = "completed_handover"
	// Running: River still says running, with no replica working it after
	// every replica stopped: stuck until River's rescuer fires.
	Running Class = "running"
	// Waiting: available, scheduled, retryable or pending: returned to the
	// queue and not yet run again.
	Waiting Class = "waiting"
	// Discarded: River gave up (max attempts reached, or rescued after the
	// last attempt).
	Discarded Class = "discarded"
	// Cancelled: cancelled (the worker refused its arguments, or an
	// operator cancelled it).
	Cancelled Class = "cancelled"
	// NotFound: inserted, but no river_job row has its id (a bug, or a
	// job cleaned up: River deletes completed jobs after 24 h).
	NotFound Class = "not_found"
)

// Classes lists every class in ledger order.
var Classes = []Class{CompletedOnce, CompletedHandover, Running, Waiting, Discarded, Cancelled, NotFound}

// Run is one execution of a job by a replica (a shutdownlab_job_run row).
type Run struct {
	// ID is the run row's id (the effect rows' run_id).
	ID       int64
	ClientID string
	Attempt  int
	Started  time.Time
	// Ended is zero when the run never recorded its end (the process was
	// killed, or its pool closed, mid-job).
	Ended   time.Time
	Outcome string
	// Steps are the effect rows this run wrote, in the order they were
	// applied: the timeline of the run.
	Steps []StepTime
}

// StepTime is one effect row: a step a run applied, and when.
type StepTime struct {
	Step    int
	Applied time.Time
}

// JobFacts is what the database holds about one job.
type JobFacts struct {
	ID int64
	// State is River's state ("completed", "running", ...); Attempt and
	// AttemptedBy River's counters.
	State       string
	Attempt     int
	AttemptedBy []string
	// Args are the job's arguments.
	Args StepArgs
	// Created is River's created_at (the insert); Finalized its
	// finalized_at (zero while the job is not finalized: not completed,
	// discarded or cancelled).
	Created, Finalized time.Time
	// Runs are its executions in start order; Effects counts effect rows
	// per step.
	Runs    []Run
	Effects map[int]int
}

// Entry is one job's line in the ledger.
type Entry struct {
	JobFacts
	Class Class
	// Twice lists the steps applied more than once; Missing the steps of a
	// completed job that have no effect row (a bug: must be empty).
	Twice, Missing []int
	// Extra counts effect rows beyond one per step.
	Extra int
}

// Ledger accounts for every inserted job.
type Ledger struct {
	// Inserted is the number of jobs the producer inserted.
	Inserted int
	// Count holds the number of jobs per class; the counts add up to
	// Inserted.
	Count map[Class]int
	// StepsTwice is the number of jobs with a step applied more than once,
	// ExtraEffects the surplus effect rows over all jobs, StepsMissing the
	// number of completed jobs lacking a step.
	StepsTwice, ExtraEffects, StepsMissing int
	// Entries are the jobs in insertion order.
	Entries []Entry
}

// knownStates are River's job states, by the class they fall in (completed
// is split by the number of executions).
var knownStates = map[string]Class{
	"completed": CompletedOnce, "running": Running, "available": Waiting, "scheduled": Waiting,
	"retryable": Waiting, "pending": Waiting, "discarded": Discarded, "cancelled": Cancelled,
}

// Classify puts every inserted job in one class. It fails when an id is
// inserted twice, when facts hold a job not inserted or twice, when a
// state is unknown, or when the counts do not add up to the jobs inserted.
func Classify(inserted []int64, facts []JobFacts) (Ledger, error) {
	byID := make(map[int64]JobFacts, len(facts))
	for _, f := range facts {
		if _, dup := byID[f.ID]; dup {
			return Ledger{}, fmt.Errorf("jobs: ledger: job %d appears twice in the database facts", f.ID)
		}
		byID[f.ID] = f
	}
	l := Ledger{Inserted: len(inserted), Count: map[Class]int{}}
	seen := make(map[int64]bool, len(inserted))
	for _, id := range inserted {
		if seen[id] {
			return Ledger{}, fmt.Errorf("jobs: ledger: job %d inserted twice", id)
		}
		seen[id] = true
		f, ok := byID[id]
		if !ok {
			l.add(Entry{JobFacts: JobFacts{ID: id}, Class: NotFound})
			continue
		}
		e, err := classify(f)
		if err != nil {
			return Ledger{}, err
		}
		l.add(e)
	}
	for id := range byID {
		if !seen[id] {
			return Ledger{}, fmt.Errorf("jobs: ledger: job %d is in the database but was not inserted", id)
		}
	}
	if err := l.Check(); err != nil {
		return Ledger{}, err
	}
	return l, nil
}

func classify(f JobFacts) (Entry, error) {
	class, ok := knownStates[f.State]
	if !ok {
		return Entry{}, fmt.Errorf("jobs: ledger: job %d has unknown state %q", f.ID, f.State)
	}
	if class == CompletedOnce && (f.Attempt > 1 || len(f.Runs) > 1) {
		class = CompletedHandover
	}
	e := Entry{JobFacts: f, Class: class}
	for _, step := range slices.Sorted(maps.Keys(f.Effects)) {
		if n := f.Effects[step]; n > 1 {
			e.Twice = append(e.Twice, step)
			e.Extra += n - 1
		}
	}
	if f.State == "completed" {
		for step := 1; step <= f.Args.Steps; step++ {
			if f.Effects[step] == 0 {
				e.Missing = append(e.Missing, step)
			}
		}
	}
	return e, nil
}

func (l *Ledger) add(e Entry) {
	l.Count[e.Class]++
	if len(e.Twice) > 0 {
		l.StepsTwice++
	}
	l.ExtraEffects += e.Extra
	if len(e.Missing) > 0 {
		l.StepsMissing++
	}
	l.Entries = append(l.Entries, e)
}

// Check fails when the class counts do not add up to Inserted.
func (l Ledger) Check() error {
	sum := 0
	for _, c := range Classes {
		sum += l.Count[c]
	}
	if sum != l.Inserted || len(l.Entries) != l.Inserted {
		return fmt.Errorf("jobs: ledger: classes add up to %d (%d entries), but %d jobs were inserted", sum, len(l.Entries), l.Inserted)
	}
	return nil
}

// Problems lists what must not happen whatever the shutdown did: jobs not
// found, and completed jobs with missing steps. Steps applied twice are
// not listed: they are the measured cost of non-idempotent retries.
func (l Ledger) Problems() []string {
	var p []string
	for _, e := range l.Entries {
		if e.Class == NotFound {
			p = append(p, fmt.Sprintf("job %d: inserted but not in river_job", e.ID))
		}
		if len(e.Missing) > 0 {
			p = append(p, fmt.Sprintf("job %d: completed without steps %v", e.ID, e.Missing))
		}
	}
	return p
}

// String is a one-line summary: the class counts, then the step flags.
func (l Ledger) String() string {
	var parts []string
	for _, c := range Classes {
		parts = append(parts, fmt.Sprintf("%s %d", c, l.Count[c]))
	}
	return fmt.Sprintf("%d inserted: %s; steps twice in %d jobs (%d extra rows); completed jobs missing steps %d",
		l.Inserted, strings.Join(parts, ", "), l.StepsTwice, l.ExtraEffects, l.StepsMissing)
}
