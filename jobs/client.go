package jobs

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// Schema is the harness's own tables, next to River's: one row per step
// applied (idempotent rows unique per (job_id, step)) and one per
// execution of a job by a replica.
const Schema = `
CREATE TABLE IF NOT EXISTS shutdownlab_job_run (
    id         bigserial PRIMARY KEY,
    job_id     bigint      NOT NULL,
    client_id  text        NOT NULL,
    attempt    int         NOT NULL,
    started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    ended_at   timestamptz,
    outcome    text
);
CREATE INDEX IF NOT EXISTS shutdownlab_job_run_job ON shutdownlab_job_run (job_id);
CREATE TABLE IF NOT EXISTS shutdownlab_job_effect (
    id         bigserial PRIMARY KEY,
    job_id     bigint      NOT NULL,
    step       int         NOT NULL,
    run_id     bigint      NOT NULL,
    client_id  text        NOT NULL,
    idempotent boolean     NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE UNIQUE INDEX IF NOT EXISTS shutdownlab_job_effect_once ON shutdownlab_job_effect (job_id, step) WHERE idempotent;
CREATE INDEX IF NOT EXISTS shutdownlab_job_effect_job ON shutdownlab_job_effect (job_id);
`

// migrateLock is the advisory lock id Migrate holds, so replicas starting
// together migrate one after the other.
const migrateLock = 1414

// Migrate brings River's schema up to date (rivermigrate, direction up:
// each migration in its own transaction, as River requires) and creates
// Schema, holding a session advisory lock on one pooled connection
// throughout, so two replicas starting at once do not race. It returns
// River's migration versions applied now (none when the database was
// current).
func Migrate(ctx context.Context, pool *pgxpool.Pool) ([]int, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("jobs: migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLock); err != nil {
		return nil, fmt.Errorf("jobs: migrate lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLock)
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return nil, fmt.Errorf("jobs: migrate: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("jobs: river migrations: %w", err)
	}
	if _, err := pool.Exec(ctx, Schema); err != nil {
		return nil, fmt.Errorf("jobs: shutdownlab schema: %w", err)
	}
	var versions []int
	for _, v := range res.Versions {
		versions = append(versions, v.Version)
	}
	return versions, nil
}

// ClientOptions configure one replica's River client.
type ClientOptions struct {
	// ID is the client's (replica's) name in River's attempted_by and in
	// run and effect rows.
	ID string
	// MaxWorkers is how many jobs the client runs at once (0: 2).
	MaxWorkers int
	// SoftStopTimeout: after a soft stop (Client.Stop, or cancelling the
	// context given to Start) has waited this long, River cancels the
	// running jobs' contexts (a hard stop). 0 waits for running jobs
	// however long they take.
	SoftStopTimeout time.Duration
	// RescueStuckJobsAfter is how long a job may stay "running" before
	// River's rescuer (run by the leader client every 30 s) makes it
	// retryable again: what frees a job whose replica was SIGKILLed.
	// 0: River's default, 1 h.
	RescueStuckJobsAfter time.Duration
	// FetchPollInterval is how often an idle client polls for jobs besides
	// LISTEN/NOTIFY (0: 100 ms, so a returned job is picked up quickly).
	FetchPollInterval time.Duration
	// Logger receives River's logs (nil: discarded).
	Logger *slog.Logger
	// Counters, when set, count the client's StepWorker executions (see
	// Counters), so the replica can log what its stop cut.
	Counters *Counters
}

// NewClient builds a River client over pool that works StepArgs jobs on
// the default queue with a StepWorker. River's client-wide JobTimeout is
// disabled (-1), so River's 1-minute default never cuts a job; each job
// has its own timeout instead (StepWorker.Timeout: its length plus a
// margin), because River v0.51.2's rescuer ignores a job whose timeout is
// disabled: with -1 alone a job left running by a killed replica stays
// running for ever (measured: not rescued in 100 s with
// RescueStuckJobsAfter 2 s).
//
// Stopping, as River v0.51.2 does it:
//   - Stop is the soft stop: stop fetching, wait for running jobs to
//     return; with SoftStopTimeout set, cancel their contexts once it has
//     passed. A job returning its cancelled context's error then is
//     "interrupted": available again at once, attempt not counted.
//   - StopAndCancel is the hard stop: cancel running jobs' contexts now,
//     then wait for them to return (same "interrupted" handling).
//   - A process killed mid-job leaves the job "running" until the rescuer
//     makes it retryable, attempt counted: at the leader's first pass
//     (every 30 s) once the run is older than both RescueStuckJobsAfter
//     and the job's timeout (record.JobEntry.RescueEligibleAfterMs).
func NewClient(pool *pgxpool.Pool, o ClientOptions) (*river.Client[pgx.Tx], error) {
	if o.ID == "" {
		return nil, fmt.Errorf("jobs: ClientOptions needs an ID")
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &StepWorker{Pool: pool, ClientID: o.ID, Counters: o.Counters})
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg := &river.Config{
		ID:                   o.ID,
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cmp.Or(o.MaxWorkers, 2)}},
		Workers:              workers,
		JobTimeout:           -1,
		SoftStopTimeout:      o.SoftStopTimeout,
		RescueStuckJobsAfter: o.RescueStuckJobsAfter,
		FetchPollInterval:    cmp.Or(o.FetchPollInterval, 100*time.Millisecond),
		FetchCooldown:        50 * time.Millisecond,
		Logger:               logger,
	}
	c, err := river.NewClient(riverpgxv5.New(pool), cfg)
	if err != nil {
		return nil, fmt.Errorf("jobs: river client %s: %w", o.ID, err)
	}
	return c, nil
}

// Insert inserts n jobs with args in one transaction-free batch and
// returns their ids in insertion order.
func Insert(ctx context.Context, c *river.Client[pgx.Tx], n int, args StepArgs) ([]int64, error) {
	if err := args.Validate(); err != nil {
		return nil, err
	}
	params := make([]river.InsertManyParams, n)
	for i := range params {
		params[i] = river.InsertManyParams{Args: args}
	}
	res, err := c.InsertMany(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("jobs: inserting %d jobs: %w", n, err)
	}
	ids := make([]int64, len(res))
	for i, r := range res {
		ids[i] = r.Job.ID
	}
	return ids, nil
}
