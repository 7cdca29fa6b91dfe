// Package jobs is the queue-job workload (load.kind jobs) on a real queue:
// River (github.com/riverqueue/river) on PostgreSQL. A job is N steps of
// step_ms; the worker checks for cancellation between steps (its only
// checkpoints) and records one effect row per step in the same database,
// idempotently (unique key (job_id, step), resumed steps skipped) or not
// (plain insert: a retry applies completed steps again). Every execution
// is recorded as a run row, so the accounting (Account, Classify) can say
// from the database alone what happened to every inserted job, including
// hand-overs River itself does not count as attempts.
package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/shutdownlab/shutdownlab/record"
)

// Kind is the River job kind of StepArgs.
const Kind = "shutdownlab_steps"

// StepArgs are a job's arguments: Steps steps of StepMS milliseconds.
type StepArgs struct {
	// Steps is the number of steps (>= 1).
	Steps int `json:"steps"`
	// StepMS is each step's duration in milliseconds (>= 0).
	StepMS int `json:"step_ms"`
	// Idempotent makes each step's effect keyed by (job_id, step): a
	// resumed job skips steps already applied and a repeated write does
	// nothing. Otherwise every execution of a step inserts a new row.
	Idempotent bool `json:"idempotent"`
}

// Kind implements river.JobArgs.
func (StepArgs) Kind() string { return Kind }

// Validate reports arguments no worker can run.
func (a StepArgs) Validate() error {
	if a.Steps < 1 || a.StepMS < 0 {
		return fmt.Errorf("jobs: steps %d, step_ms %d: want steps >= 1 and step_ms >= 0", a.Steps, a.StepMS)
	}
	return nil
}

// StepWorker runs StepArgs jobs for one River client (one replica).
type StepWorker struct {
	river.WorkerDefaults[StepArgs]
	// Pool is the database the effect and run rows go to (the queue's).
	Pool *pgxpool.Pool
	// ClientID names the replica in run and effect rows (the River
	// client's ID).
	ClientID string
	// WriteTimeout bounds each bookkeeping write (0: 5 s).
	WriteTimeout time.Duration
	// Counters, when set, count the executions (running now, cut at a
	// checkpoint, completed, failed).
	Counters *Counters
}

// Work runs the job's steps in order. Before each step it checks ctx: a
// cancelled context (River's hard stop, or a soft stop past its
// SoftStopTimeout) ends the job there with ctx's error, which River v0.51
// records as "interrupted": the job goes back to available with its
// attempt count restored, for any client to fetch. A step, once begun,
// runs to its end (its sleep is not interruptible, like work that cannot
// be abandoned half-way) and its effect row is written with a context
// detached from ctx, so a step is either applied or not begun. Idempotent
// jobs skip steps whose effect exists already (resume from the
// checkpoint). The run row records the outcome.
func (w *StepWorker) Work(ctx context.Context, job *river.Job[StepArgs]) error {
	w.Counters.begin()
	end := endFailed
	defer func() { w.Counters.end(end) }()
	a := job.Args
	if err := a.Validate(); err != nil {
		return river.JobCancel(err)
	}
	runID, done, err := w.startRun(ctx, job.ID, job.Attempt)
	if err != nil {
		return err
	}
	for step := 1; step <= a.Steps; step++ {
		if err := ctx.Err(); err != nil {
			w.endRun(ctx, runID, fmt.Sprintf("stopped before step %d: %v", step, context.Cause(ctx)))
			end = endCut
			return err
		}
		if a.Idempotent && done[step] {
			continue
		}
		time.Sleep(time.Duration(a.StepMS) * time.Millisecond)
		if err := w.applyStep(ctx, job.ID, step, runID, a.Idempotent); err != nil {
			w.endRun(ctx, runID, fmt.Sprintf("step %d failed: %v", step, err))
			return err
		}
	}
	w.endRun(ctx, runID, OutcomeCompleted)
	end = endCompleted
	return nil
}

// Timeout is the job's River timeout (record.JobTimeoutMs: its length plus
// a margin). River cancels a run that outlasts it, and its rescuer frees a
// job left running by a dead replica only once the run is this old.
func (w *StepWorker) Timeout(job *river.Job[StepArgs]) time.Duration {
	return time.Duration(record.JobTimeoutMs(job.Args.Steps, job.Args.StepMS) * float64(time.Millisecond))
}

// OutcomeCompleted is a run row's outcome when all steps were applied.
const OutcomeCompleted = "completed"

func (w *StepWorker) writeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	d := w.WriteTimeout
	if d <= 0 {
		d = 5 * time.Second
	}
	return context.WithTimeout(context.WithoutCancel(ctx), d)
}

// startRun inserts the run row and reads the steps already applied.
func (w *StepWorker) startRun(ctx context.Context, jobID int64, attempt int) (int64, map[int]bool, error) {
	wctx, cancel := w.writeCtx(ctx)
	defer cancel()
	var runID int64
	err := w.Pool.QueryRow(wctx,
		`INSERT INTO shutdownlab_job_run (job_id, client_id, attempt) VALUES ($1, $2, $3) RETURNING id`,
		jobID, w.ClientID, attempt).Scan(&runID)
	if err != nil {
		return 0, nil, fmt.Errorf("jobs: job %d: recording run: %w", jobID, err)
	}
	rows, err := w.Pool.Query(wctx, `SELECT DISTINCT step FROM shutdownlab_job_effect WHERE job_id = $1`, jobID)
	if err != nil {
		return 0, nil, fmt.Errorf("jobs: job %d: reading applied steps: %w", jobID, err)
	}
	defer rows.Close()
	done := map[int]bool{}
	for rows.Next() {
		var s int
		if err := rows.Scan(&s); err != nil {
			return 0, nil, fmt.Errorf("jobs: job %d: %w", jobID, err)
		}
		done[s] = true
	}
	return runID, done, rows.Err()
}

// applyStep writes the step's effect row.
func (w *StepWorker) applyStep(ctx context.Context, jobID int64, step int, runID int64, idempotent bool) error {
	wctx, cancel := w.writeCtx(ctx)
	defer cancel()
	q := `INSERT INTO shutdownlab_job_effect (job_id, step, run_id, client_id, idempotent) VALUES ($1, $2, $3, $4, $5)`
	if idempotent {
		q += ` ON CONFLICT (job_id, step) WHERE idempotent DO NOTHING`
	}
	if _, err := w.Pool.Exec(wctx, q, jobID, step, runID, w.ClientID, idempotent); err != nil {
		return fmt.Errorf("jobs: job %d step %d: %w", jobID, step, err)
	}
	return nil
}

// endRun records how the run ended; a failure to record it is left for
// the accounting to see (a run without an end).
func (w *StepWorker) endRun(ctx context.Context, runID int64, outcome string) {
	wctx, cancel := w.writeCtx(ctx)
	defer cancel()
	_, _ = w.Pool.Exec(wctx, `UPDATE shutdownlab_job_run SET ended_at = now(), outcome = $2 WHERE id = $1`, runID, outcome)
}
