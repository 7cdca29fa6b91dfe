package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/service/servicetest"
	"github.com/shutdownlab/shutdownlab/jobs"
	"github.com/shutdownlab/shutdownlab/record"
)

// TestProduceOnPostgres runs the agent against the offline Postgres image
// with one River worker in this process and a stand-in /db server: 4 jobs
// of 2 x 50 ms at 10 per second beside 2 HTTP clients. The start line
// (loadgen's) comes first, the jobs line last, every job is inserted and
// settled, and the request lines account for themselves.
func TestProduceOnPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn, pool := queue(t, ctx)
	worker, err := jobs.NewClient(pool, jobs.ClientOptions{ID: "worker"})
	if err != nil {
		t.Fatal(err)
	}
	if err := worker.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer worker.StopAndCancel(context.Background())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/db" {
			time.Sleep(20 * time.Millisecond)
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()

	var stdout, stderr bytes.Buffer
	t0 := time.Now()
	code := run([]string{"-dsn", dsn, "-count", "4", "-rate", "10", "-steps", "2", "-step-ms", "50",
		"-duration", "3s", "-http-target", srv.Listener.Addr().String(), "-http-clients", "2", "-http-ms", "20",
		"-drain", "1s", "-wait-ready", "/readyz"}, &stdout, &stderr, make(chan os.Signal))
	t.Logf("agent ran %s; stderr:\n%s", time.Since(t0).Round(time.Millisecond), stderr.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := readLines(t, &stdout)
	types := map[string]int{}
	for _, l := range lines {
		var v struct{ Type string }
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		types[v.Type]++
	}
	if !strings.Contains(lines[0], `"type":"start"`) || types[record.TypeStart] != 1 || types[record.TypeSummary] != 1 ||
		types[record.TypeRequest] < 10 || types[record.TypeJobs] != 1 {
		t.Fatalf("line types %v, first %q", types, lines[0])
	}
	var jl record.JobsLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &jl); err != nil || jl.Type != record.TypeJobs {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	span := time.Duration(jl.LastInsertNs - jl.FirstInsertNs)
	t.Logf("measured: %d jobs inserted over %s, settled %v after the first insert; %d requests", len(jl.IDs),
		span.Round(time.Millisecond), time.Duration(jl.SettledNs-jl.FirstInsertNs).Round(time.Millisecond), types[record.TypeRequest])
	if len(jl.IDs) != 4 || !jl.Settled || jl.Error != "" || span < 250*time.Millisecond || span > time.Second {
		t.Errorf("jobs line %+v (inserts over %s; want 4 settled, 300 ms apart at 10/s)", jl, span)
	}
	l, err := jobs.Account(ctx, pool, jl.IDs)
	if err != nil || l.Count[jobs.CompletedOnce] != 4 {
		t.Errorf("ledger %s, %v", l, err)
	}
}

// queue starts the offline Postgres image for the test, migrated, and
// returns its DSN from this host and a pool on it.
func queue(t *testing.T, ctx context.Context) (string, *pgxpool.Pool) {
	t.Helper()
	eng := dockertest.RequireDocker(t)
	pg := servicetest.Postgres(t, eng)
	pool, err := pgxpool.New(ctx, pg.HostDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := jobs.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	return pg.HostDSN(), pool
}

// TestQuietEndsTheWait: jobs stuck "running" (as a killed replica leaves
// them: here set so by hand, no worker runs) never settle; with -quiet
// 500ms the agent stops waiting once nothing moved that long, long before
// its -duration, and its jobs line says when (quiet_ns, not settled).
func TestQuietEndsTheWait(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn, pool := queue(t, ctx)
	stuck := make(chan error, 1)
	go func() { // mark both jobs running as soon as they are in
		for ctx.Err() == nil {
			tag, err := pool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now(),
				attempted_by = '{dead}' WHERE state = 'available'`)
			if err != nil || tag.RowsAffected() == 2 {
				stuck <- err
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var stdout, stderr bytes.Buffer
	t0 := time.Now()
	code := run([]string{"-dsn", dsn, "-count", "2", "-steps", "3", "-step-ms", "100", "-quiet", "500ms", "-duration", "20s"},
		&stdout, &stderr, make(chan os.Signal))
	took := time.Since(t0)
	t.Logf("agent ran %s; stderr:\n%s", took.Round(time.Millisecond), stderr.String())
	if err := <-stuck; err != nil || code != 0 {
		t.Fatalf("exit %d, marking the jobs running: %v", code, err)
	}
	lines := readLines(t, &stdout)
	var jl record.JobsLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &jl); err != nil {
		t.Fatal(err)
	}
	quiet := time.Duration(jl.QuietNs - jl.LastInsertNs)
	t.Logf("measured: the wait ended %s after the last insert", quiet.Round(time.Millisecond))
	if len(jl.IDs) != 2 || jl.Settled || jl.QuietNs == 0 || quiet < 500*time.Millisecond || took > 5*time.Second {
		t.Errorf("jobs line %+v after %s: want 2 unsettled jobs, the wait ended by quiet within seconds", jl, took)
	}
}
