package record

// LoadKindJobs is Meta.LoadKind for a run driven by the job producer
// (cmd/jobagent: River jobs on PostgreSQL); its line is the jobs line.
const LoadKindJobs = "jobs"

// Jobs is the ledger of a queue-job run (load kind jobs): every job the
// producer inserted, in exactly one class, read from the database after
// every replica had stopped (jobs.Account computes it).
type Jobs struct {
	// Inserted is the number of jobs the producer inserted; the ByClass
	// counts add up to it.
	Inserted int `json:"inserted"`
	// ByClass counts the jobs per class (JobClasses).
	ByClass map[string]int `json:"by_class"`
	// StepsTwice is the number of jobs with a step applied more than
	// once; ExtraEffects the surplus effect rows over all jobs;
	// StepsMissing the number of completed jobs lacking a step (a bug:
	// must be 0).
	StepsTwice   int `json:"steps_twice"`
	ExtraEffects int `json:"extra_effects"`
	StepsMissing int `json:"steps_missing"`
	// RescueAfterMs is the workers' RescueStuckJobsAfter: a job left
	// running by a dead replica becomes retryable once it is this old, at
	// River's next rescuer pass (every 30 s, on the leader).
	RescueAfterMs float64 `json:"rescue_after_ms"`
	// Problems lists what must never happen (a job not found, a completed
	// job missing steps), one line each.
	Problems []string `json:"problems,omitempty"`
	// Error says why the ledger could not be read (the rest is then
	// empty and the run invalid).
	Error string `json:"error,omitempty"`
	// Entries are the jobs in insertion order.
	Entries []JobEntry `json:"entries"`
}

func init() { registerPart[Jobs](metaParts, "jobs", "jobs_line") }

// Jobs is the ledger read from the database after every replica stopped
// (load kind jobs; nil when no ledger was read).
func (m Meta) Jobs() *Jobs { return partOf[Jobs](m.parts, "jobs") }

// JobEntry is one job's line in the ledger.
type JobEntry struct {
	// ID is River's job id; Class its ledger class; State River's final
	// state; Attempt and AttemptedBy River's counters.
	ID          int64    `json:"id"`
	Class       string   `json:"class"`
	State       string   `json:"state"`
	Attempt     int      `json:"attempt"`
	AttemptedBy []string `json:"attempted_by,omitempty"`
	// Steps, StepMS and Idempotent are the job's arguments.
	Steps      int  `json:"steps"`
	StepMS     int  `json:"step_ms"`
	Idempotent bool `json:"idempotent"`
	// InsertedNs is River's created_at; FinalizedNs its finalized_at (0:
	// not finalized).
	InsertedNs  int64 `json:"inserted_ns"`
	FinalizedNs int64 `json:"finalized_ns,omitempty"`
	// Runs are the job's executions in start order.
	Runs []JobRun `json:"runs,omitempty"`
	// Twice lists the steps applied more than once; Missing the steps of a
	// completed job without an effect row; Extra the surplus effect rows.
	Twice   []int `json:"twice,omitempty"`
	Missing []int `json:"missing,omitempty"`
	Extra   int   `json:"extra,omitempty"`
}

// JobTimeoutMs is the worker's River timeout for a job of steps steps of
// stepMS ms: its whole length plus a margin (a fifth, at least 2 s). River
// cancels a run that outlasts it, and its rescuer considers a job left
// running only once it is both this old and RescueStuckJobsAfter old: a
// job with no timeout (River's JobTimeout -1) is never rescued.
func JobTimeoutMs(steps, stepMS int) float64 {
	total := float64(steps) * float64(stepMS)
	return total + max(2000, total/5)
}

// RescueEligibleAfterMs is how long after a run began River's rescuer may
// take its job back: the later of the job's timeout (JobTimeoutMs) and
// rescueAfterMs (RescueStuckJobsAfter). The rescue itself happens at the
// leader's next rescuer pass, up to 30 s later.
func (e JobEntry) RescueEligibleAfterMs(rescueAfterMs float64) float64 {
	return max(JobTimeoutMs(e.Steps, e.StepMS), rescueAfterMs)
}

// JobRun is one execution of a job by one replica.
type JobRun struct {
	// Client is the replica (River client id, the replica's INSTANCE).
	Client string `json:"client"`
	// Attempt is River's attempt number as the run saw it.
	Attempt int `json:"attempt"`
	// StartedNs is when the worker reserved and began the job; EndedNs
	// when the run recorded its end (0: never: killed mid-job, or its
	// pool was closed).
	StartedNs int64 `json:"started_ns"`
	EndedNs   int64 `json:"ended_ns,omitempty"`
	// Outcome is the run's own account: "completed", "stopped before
	// step N: CAUSE", "step N failed: ERR"; empty when it never ended.
	Outcome string `json:"outcome,omitempty"`
	// StepsNs are the times the run applied its steps (effect rows it
	// wrote), by step number, in order.
	StepsNs []JobStepTime `json:"steps_ns,omitempty"`
}

// JobStepTime is one applied step of a run.
type JobStepTime struct {
	Step      int   `json:"step"`
	AppliedNs int64 `json:"applied_ns"`
}

// The ledger classes (JobEntry.Class); every inserted job is in exactly
// one. They are jobs.Classes' names.
const (
	JobCompletedOnce     = "completed_once"
	JobCompletedHandover = "completed_handover"
	JobRunning           = "running"
	JobWaiting           = "waiting"
	JobDiscarded         = "discarded"
	JobCancelled         = "cancelled"
	JobNotFound          = "not_found"
)

// JobClasses lists the classes in ledger order.
var JobClasses = []string{JobCompletedOnce, JobCompletedHandover, JobRunning, JobWaiting,
	JobDiscarded, JobCancelled, JobNotFound}

// JobsLine is the job producer's last line ({"type":"jobs",...}): what it
// inserted and whether every job had settled when it stopped waiting.
type JobsLine struct {
	Type string `json:"type"`
	// IDs are the inserted jobs' ids in insertion order.
	IDs []int64 `json:"ids"`
	// FirstInsertNs and LastInsertNs bound the inserts (Unix ns).
	FirstInsertNs int64 `json:"first_insert_ns"`
	LastInsertNs  int64 `json:"last_insert_ns"`
	// Settled is true when every inserted job was finalized (completed,
	// discarded, cancelled) before the load's duration ran out; SettledNs
	// is when the producer saw it (0: not settled).
	Settled   bool  `json:"settled"`
	SettledNs int64 `json:"settled_ns,omitempty"`
	// QuietNs is when the producer stopped waiting because nothing had
	// moved for load.jobs.quiet with no job queued and some unfinished
	// (jobs left running by a dead replica); 0 otherwise.
	QuietNs int64 `json:"quiet_ns,omitempty"`
	// Error is what stopped the producer early, if anything.
	Error string `json:"error,omitempty"`
}

func init() { registerPart[JobsLine](metaParts, "jobs_line", "resources") }

// JobsLine is the job producer's last line (load kind jobs; nil when it
// never printed one).
func (m Meta) JobsLine() *JobsLine { return partOf[JobsLine](m.parts, "jobs_line") }

// TypeJobs is the "type" of a JobsLine.
const TypeJobs = "jobs"

// JobsProgress is a job producer's progress line
// ({"type":"jobs_progress",...}), printed whenever the number of finished
// jobs changes while it waits: what the live progress shows. Nothing is
// computed from it.
type JobsProgress struct {
	Type string `json:"type"`
	// TimeNs is when the producer read it (Unix ns).
	TimeNs int64 `json:"ts_ns"`
	// Finished is the number of inserted jobs River has finalized;
	// Inserted the number inserted so far.
	Finished int `json:"finished"`
	Inserted int `json:"inserted"`
}

// TypeJobsProgress is the "type" of a JobsProgress line.
const TypeJobsProgress = "jobs_progress"
