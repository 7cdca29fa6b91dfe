package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Account reads the facts of the inserted jobs from the database (River's
// river_job rows, the harness's run and effect rows) and classifies them
// (Classify). Call it after every replica has stopped: a job a live
// replica is still working would count as running.
func Account(ctx context.Context, pool *pgxpool.Pool, inserted []int64) (Ledger, error) {
	facts, err := Facts(ctx, pool, inserted)
	if err != nil {
		return Ledger{}, err
	}
	return Classify(inserted, facts)
}

// Facts reads what the database holds about the jobs with the given ids.
func Facts(ctx context.Context, pool *pgxpool.Pool, ids []int64) ([]JobFacts, error) {
	byID := map[int64]*JobFacts{}
	var order []int64
	rows, err := pool.Query(ctx, `SELECT id, state::text, attempt, coalesce(attempted_by, '{}'), args,
		created_at, finalized_at FROM river_job WHERE id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		return nil, fmt.Errorf("jobs: accounting: river_job: %w", err)
	}
	for rows.Next() {
		var f JobFacts
		var args []byte
		var finalized *time.Time
		if err := rows.Scan(&f.ID, &f.State, &f.Attempt, &f.AttemptedBy, &args, &f.Created, &finalized); err != nil {
			rows.Close()
			return nil, fmt.Errorf("jobs: accounting: river_job: %w", err)
		}
		if finalized != nil {
			f.Finalized = *finalized
		}
		if err := json.Unmarshal(args, &f.Args); err != nil {
			rows.Close()
			return nil, fmt.Errorf("jobs: accounting: job %d args %s: %w", f.ID, args, err)
		}
		f.Effects = map[int]int{}
		byID[f.ID] = &f
		order = append(order, f.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("jobs: accounting: river_job: %w", err)
	}
	if err := readRuns(ctx, pool, ids, byID); err != nil {
		return nil, err
	}
	if err := readEffects(ctx, pool, ids, byID); err != nil {
		return nil, err
	}
	facts := make([]JobFacts, 0, len(order))
	for _, id := range order {
		facts = append(facts, *byID[id])
	}
	return facts, nil
}

// readRuns adds each job's run rows, in start order.
func readRuns(ctx context.Context, pool *pgxpool.Pool, ids []int64, byID map[int64]*JobFacts) error {
	rows, err := pool.Query(ctx, `SELECT job_id, id, client_id, attempt, started_at, ended_at, coalesce(outcome, '')
		FROM shutdownlab_job_run WHERE job_id = ANY($1) ORDER BY started_at, id`, ids)
	if err != nil {
		return fmt.Errorf("jobs: accounting: runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var r Run
		var ended *time.Time
		if err := rows.Scan(&id, &r.ID, &r.ClientID, &r.Attempt, &r.Started, &ended, &r.Outcome); err != nil {
			return fmt.Errorf("jobs: accounting: runs: %w", err)
		}
		if ended != nil {
			r.Ended = *ended
		}
		if f := byID[id]; f != nil {
			f.Runs = append(f.Runs, r)
		}
	}
	return rows.Err()
}

// Effect is one shutdownlab_job_effect row as the accounting reads it.
type Effect struct {
	JobID, RunID int64
	Step         int
	Applied      time.Time
}

// readEffects counts each job's effect rows per step and gives every run
// the steps it applied (addEffects).
func readEffects(ctx context.Context, pool *pgxpool.Pool, ids []int64, byID map[int64]*JobFacts) error {
	rows, err := pool.Query(ctx, `SELECT job_id, run_id, step, applied_at FROM shutdownlab_job_effect
		WHERE job_id = ANY($1) ORDER BY applied_at, id`, ids)
	if err != nil {
		return fmt.Errorf("jobs: accounting: effects: %w", err)
	}
	defer rows.Close()
	var effects []Effect
	for rows.Next() {
		var e Effect
		if err := rows.Scan(&e.JobID, &e.RunID, &e.Step, &e.Applied); err != nil {
			return fmt.Errorf("jobs: accounting: effects: %w", err)
		}
		effects = append(effects, e)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("jobs: accounting: effects: %w", err)
	}
	addEffects(byID, effects)
	return nil
}

// addEffects counts effects (in the order applied) per job and step in
// Effects, and appends each to the Steps of the run that wrote it (a row
// naming no run of its job counts, and is in no run's steps).
func addEffects(byID map[int64]*JobFacts, effects []Effect) {
	for _, e := range effects {
		f := byID[e.JobID]
		if f == nil {
			continue
		}
		if f.Effects == nil {
			f.Effects = map[int]int{}
		}
		f.Effects[e.Step]++
		for i := range f.Runs {
			if f.Runs[i].ID == e.RunID {
				f.Runs[i].Steps = append(f.Runs[i].Steps, StepTime{Step: e.Step, Applied: e.Applied})
				break
			}
		}
	}
}
