package report

// isJobsMetricsRun is the presence test of the job metric rows: every run
// with a ledger has them, whatever their values.
func isJobsMetricsRun(m *Metrics) bool { return m.JobsMetrics != nil }

// jobsCount, jobsMs, jobsCountP and jobsBoolP read one JobsMetrics field;
// null in a run without a ledger.
func jobsCount(f func(*JobsMetrics) int) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if m.JobsMetrics == nil {
			return Value{Null: true}
		}
		return intV(f(m.JobsMetrics))
	}
}

func jobsMs(f func(*JobsMetrics) *float64) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if m.JobsMetrics == nil {
			return Value{Null: true}
		}
		return floatP(f(m.JobsMetrics))
	}
}

func jobsCountP(f func(*JobsMetrics) *int) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if m.JobsMetrics == nil {
			return Value{Null: true}
		}
		return intP(f(m.JobsMetrics))
	}
}

func jobsBool(f func(*JobsMetrics) bool) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if m.JobsMetrics == nil {
			return Value{Null: true}
		}
		return boolV(f(m.JobsMetrics))
	}
}

func jobsBoolP(f func(*JobsMetrics) *bool) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if m.JobsMetrics == nil {
			return Value{Null: true}
		}
		return boolP(f(m.JobsMetrics))
	}
}

// jobsDef is a job metric row: optional (NeedsJobs), present in every run
// with a ledger.
// They are not compared by gate NEW --baseline OLD (Compare is none):
// write an expectation (jobs_steps_twice == 0) instead.
func jobsDef(name string, k Kind, null, doc string, get func(*Metrics) Value) MetricDef {
	return MetricDef{Name: name, Kind: k, Null: null, Doc: doc, Optional: NeedsJobs, present: isJobsMetricsRun, get: get}
}

// jobsDefs are the queue-job metric rows (docs/metrics.md, "Queue jobs"),
// in table order after the WebSocket rows.
var jobsDefs = []MetricDef{
	jobsDef("jobs_inserted", KindCount, "", "jobs: inserted by the producer (the ledger's total)", jobsCount(func(j *JobsMetrics) int { return j.JobsInserted })),
	jobsDef("jobs_completed_once", KindCount, "", "jobs: completed in one run", jobsCount(func(j *JobsMetrics) int { return j.JobsCompletedOnce })),
	jobsDef("jobs_completed_handover", KindCount, "", "jobs: completed after a hand-over to another run", jobsCount(func(j *JobsMetrics) int { return j.JobsCompletedHandover })),
	jobsDef("jobs_running", KindCount, "", "jobs: left running (stuck until River's rescue)", jobsCount(func(j *JobsMetrics) int { return j.JobsRunning })),
	jobsDef("jobs_waiting", KindCount, "", "jobs: back in the queue (available, scheduled, retryable, pending), not run again", jobsCount(func(j *JobsMetrics) int { return j.JobsWaiting })),
	jobsDef("jobs_discarded", KindCount, "", "jobs: discarded by River (out of attempts)", jobsCount(func(j *JobsMetrics) int { return j.JobsDiscarded })),
	jobsDef("jobs_cancelled", KindCount, "", "jobs: cancelled", jobsCount(func(j *JobsMetrics) int { return j.JobsCancelled })),
	jobsDef("jobs_not_found", KindCount, "", "jobs: inserted but not in the database (a bug: must be 0)", jobsCount(func(j *JobsMetrics) int { return j.JobsNotFound })),
	jobsDef("jobs_steps_twice", KindCount, "", "jobs with a step applied more than once", jobsCount(func(j *JobsMetrics) int { return j.JobsStepsTwice })),
	jobsDef("jobs_extra_effects", KindCount, "", "surplus effect rows over all jobs", jobsCount(func(j *JobsMetrics) int { return j.JobsExtraEffects })),
	jobsDef("jobs_steps_missing", KindCount, "", "completed jobs missing a step (a bug: must be 0)", jobsCount(func(j *JobsMetrics) int { return j.JobsStepsMissing })),
	jobsDef("job_handover_ms", KindMs, "none", "longest time from a run of the acted-on replica leaving a job to another replica's run starting it", jobsMs(func(j *JobsMetrics) *float64 { return j.JobHandoverMs })),
	jobsDef("jobs_cut", KindCount, "n/a", "the acted-on replica's worker_stopped jobs_cut (jobs stopped at a checkpoint, handed back)", lifecycle(jobsCountP(func(j *JobsMetrics) *int { return j.JobsCut }))),
	jobsDef("jobs_abandoned", KindCount, "", "jobs the acted-on replica's runs left without an end", jobsCount(func(j *JobsMetrics) int { return j.JobsAbandoned })),
	jobsDef("rescue_due_ms", KindMs, "none", "when River's rescuer would free the jobs left running, after the action", jobsMs(func(j *JobsMetrics) *float64 { return j.RescueDueMs })),
	jobsDef("final_log", KindBool, "n/a", "the acted-on replica's last lifecycle event is exit", lifecycle(jobsBool(func(j *JobsMetrics) bool { return j.FinalLog }))),
	jobsDef("budget_fits", KindBool, "n/a", "the budget audit: the shutdown ends by itself before the grace period", jobsBoolP(func(j *JobsMetrics) *bool { return j.BudgetFits })),
}

// NeedsJobs: the job metrics exist only in runs with a job ledger
// (load.kind jobs).
const NeedsJobs Need = "jobs"
