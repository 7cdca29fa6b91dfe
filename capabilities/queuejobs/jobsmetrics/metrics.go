// Package jobsmetrics computes the metrics of a run that worked queue jobs
// (load.kind jobs) from its job ledger (record.Meta.Jobs), the acted-on
// replica's lifecycle events and exit, and the action: the ledger's classes
// and step flags, the hand-over, the jobs abandoned, River's rescue, and the
// shutdown budget audit of the run's configuration (BudgetOf). Pure; report
// holds the result as a part of its Metrics (queuejobs.Of), and its capability
// defines the rows.
package jobsmetrics

import (
	"fmt"
	"strings"

	"github.com/shutdownlab/shutdownlab/budget"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Metrics are the metrics of a queue-job run (load.kind jobs): pure
// functions of the run's ledger (record.Meta.Jobs), the acted-on replica's
// lifecycle events and exit, the action, and (for the budget) the requests'
// paths. report.Metrics holds them as a part (queuejobs.Of), flat in its
// JSON: absent from the JSON of runs without a ledger, present (some null)
// in every run with one. docs/metrics.md ("Queue jobs") defines each one.
type Metrics struct {
	// The ledger: jobs inserted, then the jobs of each class
	// (record.JobClasses); the classes add up to the jobs inserted.
	JobsInserted          int `json:"jobs_inserted"`
	JobsCompletedOnce     int `json:"jobs_completed_once"`
	JobsCompletedHandover int `json:"jobs_completed_handover"`
	JobsRunning           int `json:"jobs_running"`
	JobsWaiting           int `json:"jobs_waiting"`
	JobsDiscarded         int `json:"jobs_discarded"`
	JobsCancelled         int `json:"jobs_cancelled"`
	JobsNotFound          int `json:"jobs_not_found"`
	// The step flags: jobs with a step applied twice, surplus effect
	// rows, completed jobs missing a step (a bug: must be 0).
	JobsStepsTwice   int `json:"jobs_steps_twice"`
	JobsExtraEffects int `json:"jobs_extra_effects"`
	JobsStepsMissing int `json:"jobs_steps_missing"`

	// JobHandoverMs is the longest hand-over: over the jobs a run of the
	// acted-on replica left and a run of another replica took up next,
	// the time from the end of the first (its replica's exit when it
	// never ended) to the start of the second. Null without a hand-over.
	JobHandoverMs *float64 `json:"job_handover_ms"`
	// JobsCut is the acted-on replica's worker_stopped jobs_cut: jobs it
	// cancelled that stopped at a checkpoint and were handed back. Null
	// when it logged no worker_stopped.
	JobsCut *int `json:"jobs_cut"`
	// JobsAbandoned counts the jobs with a run of the acted-on replica
	// that never ended (killed mid-job, or its pool closed under it).
	JobsAbandoned int `json:"jobs_abandoned"`
	// RescueDueMs is, for the jobs left running, when River's rescuer
	// would first consider them all stuck: the latest of their last run's
	// start plus the later of Jobs.RescueAfterMs and the job's timeout
	// (record.JobEntry.RescueEligibleAfterMs), in ms after the action was
	// sent; the leader's rescuer pass (every 30 s) comes after. Null
	// without a job left running or without an action.
	RescueDueMs *float64 `json:"rescue_due_ms"`
	// FinalLog is true when the acted-on replica's last lifecycle event
	// is "exit": it got to say how it ended.
	FinalLog bool `json:"final_log"`
	// BudgetFits is the budget audit of the run's configuration
	// (BudgetOf): the shutdown ends by itself before the grace
	// period's SIGKILL. Null without a grace period (a signal action) or
	// when a variable does not parse.
	BudgetFits *bool `json:"budget_fits"`
	// BudgetAudit is that audit on one line (Budget.Text): not a metric,
	// the "before" of report.md's Jobs section.
	BudgetAudit string `json:"budget_audit"`
}

// IsRun reports whether meta is a queue-job run with a ledger.
func IsRun(meta record.Meta) bool { return meta.Jobs() != nil }

// Compute returns the job metrics of a run with a ledger (nil without
// one) and the notes on its ledger: it could not be read, its classes do
// not add up, or it lists problems.
func Compute(meta record.Meta, reqs []record.Request) (*Metrics, []string) {
	if !IsRun(meta) {
		return nil, nil
	}
	j := meta.Jobs()
	jm := &Metrics{JobsInserted: j.Inserted,
		JobsStepsTwice: j.StepsTwice, JobsExtraEffects: j.ExtraEffects, JobsStepsMissing: j.StepsMissing}
	for _, c := range []struct {
		class string
		n     *int
	}{{record.JobCompletedOnce, &jm.JobsCompletedOnce}, {record.JobCompletedHandover, &jm.JobsCompletedHandover},
		{record.JobRunning, &jm.JobsRunning}, {record.JobWaiting, &jm.JobsWaiting}, {record.JobDiscarded, &jm.JobsDiscarded},
		{record.JobCancelled, &jm.JobsCancelled}, {record.JobNotFound, &jm.JobsNotFound}} {
		*c.n = j.ByClass[c.class]
	}
	notes := jobsLedgerNotes(j)
	acted := shutdown.ActedReplica(meta)
	if acted >= 0 {
		rep := &meta.Replicas[acted]
		jm.JobHandoverMs = jobHandoverMs(meta, acted)
		jm.JobsAbandoned = jobsAbandoned(meta, acted)
		jm.JobsCut = workerJobsCut(rep.Events)
		jm.FinalLog = len(rep.Events) > 0 && rep.Events[len(rep.Events)-1].Event == record.EventExit
	}
	jm.RescueDueMs = rescueDueMs(meta)
	b := BudgetOf(meta, reqs)
	jm.BudgetAudit = b.Text
	if b.Verdict == budget.Fits || b.Verdict == budget.Exceeds || b.Verdict == budget.NoShutdown {
		jm.BudgetFits = ptr(b.Fits)
	}
	return jm, notes
}

// jobsLedgerNotes says what is wrong with a ledger: it could not be read,
// its classes do not add up to the jobs inserted, or it lists problems.
func jobsLedgerNotes(j *record.Jobs) []string {
	var notes []string
	if j.Error != "" {
		notes = append(notes, "jobs ledger not read: "+j.Error)
	}
	if sum := ClassSum(j); sum != j.Inserted {
		notes = append(notes, fmt.Sprintf("jobs ledger: the classes add up to %d, not the %d jobs inserted", sum, j.Inserted))
	}
	for _, p := range j.Problems {
		notes = append(notes, "jobs ledger: "+p)
	}
	return notes
}

// ClassSum adds up a ledger's class counts (every inserted job is in
// exactly one class: the sum is the jobs inserted when the ledger adds up).
func ClassSum(j *record.Jobs) int {
	sum := 0
	for _, n := range j.ByClass {
		sum += n
	}
	return sum
}

// ClientReplica returns the index of the replica a River client id
// (record.JobRun.Client) names (-1: none): the replica's INSTANCE (the id
// the worker takes), else its name, or its name followed by ":port".
func ClientReplica(meta record.Meta, client string) int {
	for i := range meta.Replicas {
		r := &meta.Replicas[i]
		if inst := r.Env["INSTANCE"]; inst != "" && inst == client {
			return i
		}
	}
	for i := range meta.Replicas {
		r := &meta.Replicas[i]
		if r.Name != "" && (client == r.Name || strings.HasPrefix(client, r.Name+":")) {
			return i
		}
	}
	return -1
}

// onReplica reports whether run ran on replica i.
func onReplica(meta record.Meta, run *record.JobRun, i int) bool {
	return ClientReplica(meta, run.Client) == i
}

// jobHandoverMs is job_handover_ms: the longest gap, over the jobs, from
// the end of a run on replica acted (its exit when the run never ended)
// to the start of the next run on another replica; nil without one.
func jobHandoverMs(meta record.Meta, acted int) *float64 {
	var best *float64
	exited := meta.Replicas[acted].ExitedNs
	for _, e := range meta.Jobs().Entries {
		for k := 0; k+1 < len(e.Runs); k++ {
			run, next := &e.Runs[k], &e.Runs[k+1]
			if !onReplica(meta, run, acted) || onReplica(meta, next, acted) {
				continue
			}
			from := run.EndedNs
			if from == 0 {
				from = exited
			}
			if from == 0 || next.StartedNs == 0 {
				continue
			}
			if ms := float64(next.StartedNs-from) / 1e6; best == nil || ms > *best {
				best = ptr(ms)
			}
		}
	}
	return best
}

// jobsAbandoned is jobs_abandoned: the jobs with a run on replica acted
// that never ended.
func jobsAbandoned(meta record.Meta, acted int) int {
	n := 0
	for _, e := range meta.Jobs().Entries {
		for k := range e.Runs {
			if r := &e.Runs[k]; r.EndedNs == 0 && onReplica(meta, r, acted) {
				n++
				break
			}
		}
	}
	return n
}

// workerJobsCut is the jobs_cut of the first worker_stopped event that
// has one (nil: none).
func workerJobsCut(events []record.Event) *int {
	for _, e := range events {
		if e.Event == record.EventWorkerStopped && e.JobsCut != nil {
			return ptr(*e.JobsCut)
		}
	}
	return nil
}

// rescueDueMs is rescue_due_ms: over the jobs left running, the latest
// moment one becomes eligible for River's rescuer (its last run's start
// plus record.JobEntry.RescueEligibleAfterMs), after the action's send
// time; nil without such a job, a run start, or an action.
func rescueDueMs(meta record.Meta) *float64 {
	if meta.Action == nil || meta.Action.SentNs == 0 {
		return nil
	}
	var due *float64
	for _, e := range meta.Jobs().Entries {
		if e.Class != record.JobRunning {
			continue
		}
		var latest int64
		for _, r := range e.Runs {
			latest = max(latest, r.StartedNs)
		}
		if latest == 0 {
			continue
		}
		d := float64(latest-meta.Action.SentNs)/1e6 + e.RescueEligibleAfterMs(meta.Jobs().RescueAfterMs)
		if due == nil || d > *due {
			due = ptr(d)
		}
	}
	return due
}

func ptr[T any](v T) *T { return &v }
