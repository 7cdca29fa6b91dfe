package jobs_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/service/servicetest"
	"github.com/shutdownlab/shutdownlab/jobs"
)

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestRiverSoftStopHandsOver runs two River clients ("replicas") in this
// process on the offline Postgres image: 10 jobs of 4 × 200 ms, half
// idempotent. Replica a works the first two alone; once each has applied
// a step, b starts and a is soft-stopped with SoftStopTimeout 100 ms.
// What River v0.51.2 does, as measured: a's jobs are cancelled at their
// next checkpoint, marked "interrupted" (available again, attempt
// restored to 0), and b completes them; River's attempt then reads 1 and
// attempted_by [a b], so the hand-over is visible in attempted_by and the
// harness's run rows, not in attempt. The idempotent job resumes from its
// checkpoint; the non-idempotent one applies a's steps again.
func TestRiverSoftStopHandsOver(t *testing.T) {
	eng := dockertest.RequireDocker(t)
	pg := servicetest.Postgres(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pool := newPool(t, ctx, pg.HostDSN())
	versions, err := jobs.Migrate(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	again, err := jobs.Migrate(ctx, pool)
	if err != nil || len(versions) == 0 || len(again) != 0 {
		t.Fatalf("migrations: first %v, second %v (%v); want some, then none", versions, again, err)
	}
	logger := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// Each replica has its own pool, as separate processes would.
	a := newClient(t, newPool(t, ctx, pg.HostDSN()), jobs.ClientOptions{ID: "replica-a", SoftStopTimeout: 100 * time.Millisecond, Logger: logger})
	b := newClient(t, newPool(t, ctx, pg.HostDSN()), jobs.ClientOptions{ID: "replica-b", Logger: logger})

	var inserted []int64
	for i := range 10 {
		ids, err := jobs.Insert(ctx, a, 1, jobs.StepArgs{Steps: 4, StepMS: 200, Idempotent: i%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		inserted = append(inserted, ids...)
	}
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	held := waitFor(t, ctx, pool, "replica a holds 2 jobs with a step applied",
		`SELECT coalesce(array_agg(DISTINCT job_id ORDER BY job_id), '{}') FROM shutdownlab_job_effect WHERE client_id = 'replica-a'`,
		func(ids []int64) bool { return len(ids) == 2 })
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := a.Stop(ctx); err != nil {
		t.Fatalf("soft stop of a: %v", err)
	}
	t.Logf("measured: soft stop of replica a (SoftStopTimeout 100 ms, steps of 200 ms) returned in %s", time.Since(t0).Round(time.Millisecond))
	waitFor(t, ctx, pool, "all 10 jobs completed",
		`SELECT coalesce(array_agg(id), '{}') FROM river_job WHERE state = 'completed'`,
		func(ids []int64) bool { return len(ids) == 10 })
	if err := b.Stop(ctx); err != nil {
		t.Fatalf("soft stop of b: %v", err)
	}

	l, err := jobs.Account(ctx, pool, inserted)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ledger: %s", l)
	if p := l.Problems(); len(p) > 0 {
		t.Errorf("problems: %v", p)
	}
	if l.Count[jobs.CompletedHandover] != 2 || l.Count[jobs.CompletedOnce] != 8 {
		t.Errorf("want 2 handed over and 8 completed once: %s", l)
	}
	for _, e := range l.Entries {
		if slices.Contains(held, e.ID) {
			checkHandedOver(t, ctx, pool, e)
		} else if e.Class != jobs.CompletedOnce || len(e.Twice) > 0 {
			t.Errorf("job %d (not a's): %s, twice %v", e.ID, e.Class, e.Twice)
		}
	}
}

// checkHandedOver asserts what became of one of a's interrupted jobs.
func checkHandedOver(t *testing.T, ctx context.Context, pool *pgxpool.Pool, e jobs.Entry) {
	t.Helper()
	if e.Class != jobs.CompletedHandover || len(e.Runs) != 2 {
		t.Fatalf("job %d: %s with runs %+v; want completed after a hand-over, 2 runs", e.ID, e.Class, e.Runs)
	}
	first, second := e.Runs[0], e.Runs[1]
	t.Logf("measured: job %d (idempotent %v): a %q; hand-over gap %s; b %q; river attempt %d attempted_by %v; effects %v",
		e.ID, e.Args.Idempotent, first.Outcome, second.Started.Sub(first.Ended).Round(time.Millisecond),
		second.Outcome, e.Attempt, e.AttemptedBy, e.Effects)
	if first.ClientID != "replica-a" || !strings.HasPrefix(first.Outcome, "stopped before step") ||
		second.ClientID != "replica-b" || second.Outcome != jobs.OutcomeCompleted {
		t.Errorf("job %d: runs %+v; want a stopped at a checkpoint, then b completed", e.ID, e.Runs)
	}
	if e.Attempt != 1 || !slices.Equal(e.AttemptedBy, []string{"replica-a", "replica-b"}) {
		t.Errorf("job %d: river attempt %d attempted_by %v; River v0.51.2 restores the attempt of an interrupted job: want 1, [replica-a replica-b]",
			e.ID, e.Attempt, e.AttemptedBy)
	}
	var byA int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM shutdownlab_job_effect WHERE job_id = $1 AND client_id = 'replica-a'`, e.ID).Scan(&byA); err != nil {
		t.Fatal(err)
	}
	if byA < 1 || byA > 3 {
		t.Errorf("job %d: a applied %d steps, want 1-3", e.ID, byA)
	}
	checkTimeline(t, e, byA)
	wantExtra := byA
	if e.Args.Idempotent {
		wantExtra = 0
	}
	if e.Extra != wantExtra {
		t.Errorf("job %d (idempotent %v): %d steps applied twice, want %d (a applied %d)", e.ID, e.Args.Idempotent, e.Extra, wantExtra, byA)
	}
}

func newPool(t *testing.T, ctx context.Context, dsn string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func newClient(t *testing.T, pool *pgxpool.Pool, o jobs.ClientOptions) *river.Client[pgx.Tx] {
	t.Helper()
	c, err := jobs.NewClient(pool, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.StopAndCancel(ctx); err != nil {
			t.Errorf("stopping %s: %v", o.ID, err)
		}
	})
	return c
}

// waitFor polls query (returning a bigint[]) every 50 ms until ok holds,
// for at most 30 s, and returns the last ids.
func waitFor(t *testing.T, ctx context.Context, pool *pgxpool.Pool, what, query string, ok func([]int64) bool) []int64 {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ids []int64
		if err := pool.QueryRow(ctx, query).Scan(&ids); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(ids) {
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within 30 s: %s (last: %v)", what, ids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkTimeline asserts the timeline Facts reads for a handed-over job:
// inserted before its first run, each run's steps (a's byA of them, b's
// the rest) applied in order within the run, finalized after b's last.
func checkTimeline(t *testing.T, e jobs.Entry, byA int) {
	t.Helper()
	first, second := e.Runs[0], e.Runs[1]
	wantB := e.Args.Steps
	if e.Args.Idempotent {
		wantB -= byA
	}
	if len(first.Steps) != byA || len(second.Steps) != wantB {
		t.Fatalf("job %d: run steps %+v / %+v; want %d by a, %d by b", e.ID, first.Steps, second.Steps, byA, wantB)
	}
	if e.Created.IsZero() || !e.Created.Before(first.Started) {
		t.Errorf("job %d: created %v, first run started %v", e.ID, e.Created, first.Started)
	}
	for _, r := range e.Runs {
		prev := r.Started
		for _, st := range r.Steps {
			if st.Applied.Before(prev) || st.Applied.After(r.Ended) {
				t.Errorf("job %d run %d: step %d applied %v, outside [%v, %v] or out of order", e.ID, r.ID, st.Step, st.Applied, prev, r.Ended)
			}
			prev = st.Applied
		}
	}
	if last := second.Steps[len(second.Steps)-1].Applied; e.Finalized.Before(last) {
		t.Errorf("job %d: finalized %v before its last step %v", e.ID, e.Finalized, last)
	}
}
