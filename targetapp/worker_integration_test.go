package targetapp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
	"github.com/shutdownlab/shutdownlab/record"
)

// queueDB is one test database on the shared Postgres: its DSN for the
// target, a pool for the assertions and an insert-only River client.
type queueDB struct {
	dsn      string
	pool     *pgxpool.Pool
	producer *river.Client[pgx.Tx]
}

// TestWorkerModesAgainstPostgres runs the target binary as a child
// process with WORKER=on against the offline Postgres image (one database
// per mode, migrated from the test as the runner does), inserts jobs with
// jobs.Insert and sends SIGTERM: full hands the jobs back at
// WORKER_DEADLINE_MS and another replica completes them; close waits for
// them; POOL_CLOSE=first fails /db in flight; a DRAIN_MS shorter than the
// jobs exits 1 saying what it cut; none dies mid-job.
func TestWorkerModesAgainstPostgres(t *testing.T) {
	if targetBin == "" {
		t.Skip("needs the target binary; skipped in -short mode")
	}
	eng := dockertest.RequireDocker(t)
	pg := servicetest.Postgres(t, eng)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	admin, err := pgxpool.New(ctx, pg.HostDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	newDB := func(t *testing.T, name string) *queueDB {
		t.Helper()
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(pg.HostDSN())
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		q := &queueDB{dsn: u.String()}
		if q.pool, err = pgxpool.New(ctx, q.dsn); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(q.pool.Close)
		if _, err := jobs.Migrate(ctx, q.pool); err != nil {
			t.Fatal(err)
		}
		if q.producer, err = jobs.NewClient(q.pool, jobs.ClientOptions{ID: "producer"}); err != nil {
			t.Fatal(err)
		}
		return q
	}
	t.Run("full hands back", func(t *testing.T) { testWorkerFull(t, ctx, newDB(t, "wk_full")) })
	t.Run("live hand-over", func(t *testing.T) { testWorkerLiveHandover(t, ctx, newDB(t, "wk_live")) })
	t.Run("close waits", func(t *testing.T) { testWorkerClose(t, ctx, newDB(t, "wk_close")) })
	t.Run("pool closed first", func(t *testing.T) { testWorkerPoolFirst(t, ctx, newDB(t, "wk_pool_first")) })
	t.Run("drain deadline first", func(t *testing.T) { testWorkerDeadline(t, ctx, newDB(t, "wk_deadline")) })
	t.Run("none", func(t *testing.T) { testWorkerNone(t, ctx, newDB(t, "wk_none")) })
}

// insert inserts one job per args and returns their ids.
func (q *queueDB) insert(t *testing.T, ctx context.Context, args ...jobs.StepArgs) []int64 {
	t.Helper()
	var ids []int64
	for _, a := range args {
		id, err := jobs.Insert(ctx, q.producer, 1, a)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id...)
	}
	return ids
}

// waitInt polls query (one int) every 50 ms until ok holds, for at most
// 15 s.
func (q *queueDB) waitInt(t *testing.T, ctx context.Context, what, query string, ok func(int) bool, args ...any) int {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var n int
		if err := q.pool.QueryRow(ctx, query, args...).Scan(&n); err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(n) {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within 15 s: %s (last %d)", what, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitStarted waits until client has applied a step of every job in ids.
func (q *queueDB) waitStarted(t *testing.T, ctx context.Context, client string, ids []int64) {
	t.Helper()
	q.waitInt(t, ctx, fmt.Sprintf("%s has applied a step of jobs %v", client, ids),
		`SELECT count(DISTINCT job_id) FROM shutdownlab_job_effect WHERE client_id = $1 AND job_id = ANY($2)`,
		func(n int) bool { return n == len(ids) }, client, ids)
}

// states returns River's state of each job in ids, in order.
func (q *queueDB) states(t *testing.T, ctx context.Context, ids []int64) []string {
	t.Helper()
	var out []string
	for _, id := range ids {
		var s string
		if err := q.pool.QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// runOutcomes returns the outcome of each run row of client ("<null>"
// for a run without an end).
func (q *queueDB) runOutcomes(t *testing.T, ctx context.Context, client string) []string {
	t.Helper()
	rows, err := q.pool.Query(ctx, `SELECT coalesce(outcome, '<null>') FROM shutdownlab_job_run WHERE client_id = $1 ORDER BY id`, client)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// startWorkerChild starts the target with WORKER=on on q.
func startWorkerChild(t *testing.T, q *queueDB, instance string, env ...string) *child {
	t.Helper()
	c := startChild(t, append([]string{"WORKER=on", "DATABASE_URL=" + q.dsn, "INSTANCE=" + instance}, env...)...)
	t.Cleanup(func() {
		// With GOFLAGS=-race the binary is built with the race detector.
		if s := c.stderr.String(); strings.Contains(s, "DATA RACE") {
			t.Errorf("%s: data race in the target:\n%s", instance, s)
		}
	})
	return c
}

// one returns the single event named name.
func one(t *testing.T, evs []record.Event, name string) record.Event {
	t.Helper()
	e := find(evs, name)
	if len(e) != 1 {
		t.Fatalf("%d %q events in %v, want 1", len(e), name, names(evs))
	}
	return e[0]
}

// before reports whether event a comes before event b in evs.
func before(evs []record.Event, a, b string) bool {
	n := names(evs)
	i, j := slices.Index(n, a), slices.Index(n, b)
	return i >= 0 && j >= 0 && i < j
}

// bodyResult is one GET's status and body.
type bodyResult struct {
	status int
	body   string
	err    error
}

func getBody(c *http.Client, url string) <-chan bodyResult {
	ch := make(chan bodyResult, 1)
	go func() {
		resp, err := c.Get(url)
		if err != nil {
			ch <- bodyResult{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		ch <- bodyResult{status: resp.StatusCode, body: strings.TrimSpace(string(b))}
	}()
	return ch
}

func ptr[T any](p *T) any {
	if p == nil {
		return "<nil>"
	}
	return *p
}
