package queuejobs

import (
	"errors"
	"slices"

	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs/jobsmetrics"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Need is the capability's name: the job metrics exist only in runs with
// a job ledger (load.kind jobs).
const Need report.Need = "jobs"

// Capability is the queue-job load as a report capability: its rows
// follow the core row job_committed, and a result whose every run worked
// jobs leads with the ledger (headline), not the HTTP counters.
var Capability = report.Capability{Part: (*jobsmetrics.Metrics)(nil), Name: Need, Requirement: "load.kind jobs",
	OfSpec: report.LoadKindIs(LoadKind), Has: report.LoadKindRan(Need, record.LoadKindJobs),
	Rows: rows, After: "job_committed", Accounting: accounting,
	Headline: &report.Headline{Cols: headline, Text: headlineText},
	Compute: func(in report.ComputeInput) (any, []string) {
		return report.Computed(jobsmetrics.Compute(in.Meta, in.Requests))
	}}

// init registers the jobs load kind with the scenarios: the kind exists
// for a program that imports this package (through package capabilities'
// list). Its driver and database register with the runner in
// database.go.
func init() { scenarios.RegisterLoadKind(LoadKind, loadKindDef) }

// accounting is the agent's rule (record.CheckAccounting) for a run with
// a job ledger, but for a run without HTTP clients: it sent no request,
// its producer printed no summary, and there is nothing to check.
func accounting(in report.ComputeInput, t *record.Tally) ([]error, bool) {
	if !jobsmetrics.IsRun(in.Meta) {
		return nil, false
	}
	errs := record.CheckAccounting(in.Meta.Agent, t)
	if in.Core.Requests == 0 {
		errs = slices.DeleteFunc(errs, func(err error) bool { return errors.Is(err, record.ErrNoSummary) })
	}
	return errs, true
}

// Of returns the run's queue-job metrics; nil without a job ledger.
func Of(m *report.Metrics) *jobsmetrics.Metrics { return report.PartOf[jobsmetrics.Metrics](m, Need) }

// row is a job metric row: optional, present in every run with a ledger
// (whatever its values). They are not compared by gate NEW --baseline
// OLD (Compare is none): write an expectation (jobs_steps_twice == 0)
// instead.
func row(name string, k report.Kind, null, doc string, read func(*jobsmetrics.Metrics) report.Value) report.MetricDef {
	return report.PartDef(Need, name, k, null, report.CompareNone, doc, read)
}

// rows are the queue-job metric rows (docs/metrics.md, "Queue jobs").
var rows = []report.MetricDef{
	row("jobs_inserted", report.KindCount, "", "jobs: inserted by the producer (the ledger's total)",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsInserted) }),
	row("jobs_completed_once", report.KindCount, "", "jobs: completed in one run",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsCompletedOnce) }),
	row("jobs_completed_handover", report.KindCount, "", "jobs: completed after a hand-over to another run",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsCompletedHandover) }),
	row("jobs_running", report.KindCount, "", "jobs: left running (stuck until River's rescue)",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsRunning) }),
	row("jobs_waiting", report.KindCount, "", "jobs: back in the queue (available, scheduled, retryable, pending), not run again",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsWaiting) }),
	row("jobs_discarded", report.KindCount, "", "jobs: discarded by River (out of attempts)",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsDiscarded) }),
	row("jobs_cancelled", report.KindCount, "", "jobs: cancelled",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsCancelled) }),
	row("jobs_not_found", report.KindCount, "", "jobs: inserted but not in the database (a bug: must be 0)",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsNotFound) }),
	row("jobs_steps_twice", report.KindCount, "", "jobs with a step applied more than once",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsStepsTwice) }),
	row("jobs_extra_effects", report.KindCount, "", "surplus effect rows over all jobs",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsExtraEffects) }),
	row("jobs_steps_missing", report.KindCount, "", "completed jobs missing a step (a bug: must be 0)",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsStepsMissing) }),
	row("job_handover_ms", report.KindMs, "none", "longest time from a run of the acted-on replica leaving a job to another replica's run starting it",
		func(j *jobsmetrics.Metrics) report.Value { return report.FloatPtrValue(j.JobHandoverMs) }),
	row("jobs_cut", report.KindCount, "n/a", "the acted-on replica's worker_stopped jobs_cut (jobs stopped at a checkpoint, handed back)",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntPtrValue(j.JobsCut) }).FromLifecycleLog(),
	row("jobs_abandoned", report.KindCount, "", "jobs the acted-on replica's runs left without an end",
		func(j *jobsmetrics.Metrics) report.Value { return report.IntValue(j.JobsAbandoned) }),
	row("rescue_due_ms", report.KindMs, "none", "when River's rescuer would free the jobs left running, after the action",
		func(j *jobsmetrics.Metrics) report.Value { return report.FloatPtrValue(j.RescueDueMs) }),
	row("final_log", report.KindBool, "n/a", "the acted-on replica's last lifecycle event is exit",
		func(j *jobsmetrics.Metrics) report.Value { return report.BoolValue(j.FinalLog) }).FromLifecycleLog(),
	row("budget_fits", report.KindBool, "n/a", "the budget audit: the shutdown ends by itself before the grace period",
		func(j *jobsmetrics.Metrics) report.Value { return report.BoolPtrValue(j.BudgetFits) }),
}

// headline is the headline of a result whose every run worked queue
// jobs: what became of the jobs (the ledger), then the HTTP requests sent
// beside them (0 without http_clients), then how the process ended. The
// request counters alone read 0 for a load of jobs only, while mode none
// left jobs running.
var headline = []string{"jobs_inserted", "jobs_completed_once", "jobs_completed_handover", "jobs_running", "jobs_waiting",
	"jobs_abandoned", "jobs_steps_twice", "jobs_steps_missing", "budget_fits", "requests", "failed_while_running",
	"exit_code", "exit_after_ms", "drain_ms"}

// headlineText explains the jobs headline under its table.
const headlineText = "\n`jobs_*` is the ledger read from the database after every replica stopped: jobs completed " +
	"in one run, completed after a hand-over to another run, left running (stuck until River's rescue), back in the " +
	"queue, left by the acted-on replica without an end, with a step applied twice or missing; `budget_fits` whether " +
	"the shutdown ended by itself within the grace period. `requests` and `failed_while_running` are the HTTP " +
	"requests sent beside the jobs. The Jobs section below has every class; every other metric is in the table " +
	"below.\n\n## All metrics\n\n"
