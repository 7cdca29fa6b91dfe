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
	rows, err := pool.Query(ctx, `SELECT id, state::text, attempt, coalesce(attempted_by, '{}'), args
		FROM river_job WHERE id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		return nil, fmt.Errorf("jobs: accounting: river_job: %w", err)
	}
	for rows.Next() {
		var f JobFacts
		var args []byte
		if err := rows.Scan(&f.ID, &f.State, &f.Attempt, &f.AttemptedBy, &args); err != nil {
			rows.Close()
			return nil, fmt.Errorf("jobs: accounting: river_job: %w", err)
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

func readRuns(ctx context.Context, pool *pgxpool.Pool, ids []int64, byID map[int64]*JobFacts) error {
	rows, err := pool.Query(ctx, `SELECT job_id, client_id, attempt, started_at, ended_at, coalesce(outcome, '')
		FROM shutdownlab_job_run WHERE job_id = ANY($1) ORDER BY started_at, id`, ids)
	if err != nil {
		return fmt.Errorf("jobs: accounting: runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var r Run
		var ended *time.Time
		if err := rows.Scan(&id, &r.ClientID, &r.Attempt, &r.Started, &ended, &r.Outcome); err != nil {
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

func readEffects(ctx context.Context, pool *pgxpool.Pool, ids []int64, byID map[int64]*JobFacts) error {
	rows, err := pool.Query(ctx, `SELECT job_id, step, count(*) FROM shutdownlab_job_effect
		WHERE job_id = ANY($1) GROUP BY job_id, step`, ids)
	if err != nil {
		return fmt.Errorf("jobs: accounting: effects: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var step, n int
		if err := rows.Scan(&id, &step, &n); err != nil {
			return fmt.Errorf("jobs: accounting: effects: %w", err)
		}
		if f := byID[id]; f != nil {
			f.Effects[step] = n
		}
	}
	return rows.Err()
}
