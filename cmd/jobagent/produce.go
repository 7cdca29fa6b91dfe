package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/shutdownlab/shutdownlab/jobs"
	"github.com/shutdownlab/shutdownlab/loadgen"
	"github.com/shutdownlab/shutdownlab/record"
)

// Bounds of the producer's own database calls.
const (
	insertTimeout = 10 * time.Second // one insert (a batch included)
	pollTimeout   = 2 * time.Second  // one settled query
)

// producer is one run of the agent: the start line, the inserts, the
// settle wait, the HTTP load beside them, and the jobs line.
type producer struct {
	cfg  config
	out  io.Writer
	logf func(format string, args ...any)

	enc  *loadgen.JSONEncoder // every line but the last goes through it
	once sync.Once
}

// encoder is the JSON encoder of the agent's stdout, made on first use.
func (p *producer) encoder() *loadgen.JSONEncoder {
	p.once.Do(func() { p.enc = loadgen.NewJSONEncoder(p.out) })
	return p.enc
}

// run produces the load until every job settled (and the HTTP load
// ended) or ctx ended, and returns the jobs line to write last. Its error
// is the database's refusal (the line's Error says it too).
func (p *producer) run(ctx context.Context) (record.JobsLine, error) {
	line := record.JobsLine{Type: record.TypeJobs, IDs: []int64{}}
	pool, client, err := p.connect(ctx)
	if err != nil {
		line.Error = err.Error()
		return line, err
	}
	defer pool.Close()
	hctx, stopHTTP := context.WithCancel(ctx)
	defer stopHTTP()
	start, httpDone, err := p.begin(hctx)
	if err != nil {
		line.Error = err.Error()
		return line, err
	}
	dctx, cancel := context.WithDeadline(ctx, start.Add(p.cfg.Duration))
	defer cancel()
	if err := p.insert(dctx, client, start, &line); err != nil {
		line.Error = err.Error()
		stopHTTP() // the HTTP load ends with the producer
		<-httpDone
		return line, err
	}
	p.logf("%d jobs of %d x %d ms inserted in %s", len(line.IDs), p.cfg.Args.Steps, p.cfg.Args.StepMS,
		time.Duration(line.LastInsertNs-line.FirstInsertNs).Round(time.Millisecond))
	p.settle(dctx, pool, &line)
	if ctx.Err() != nil && !line.Settled {
		p.logf("stopped before every job settled")
	}
	<-httpDone
	return line, nil
}

// connect opens a small pool on the queue's database, pinging it until it
// answers (bounded by -connect-timeout), and an insert-only River client.
func (p *producer) connect(ctx context.Context) (*pgxpool.Pool, *river.Client[pgx.Tx], error) {
	cctx, cancel := context.WithTimeout(ctx, p.cfg.Connect)
	defer cancel()
	pcfg, err := pgxpool.ParseConfig(p.cfg.DSN)
	if err != nil {
		return nil, nil, fmt.Errorf("database: %w", err)
	}
	pcfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(cctx, pcfg)
	if err != nil {
		return nil, nil, fmt.Errorf("database: %w", err)
	}
	for {
		pctx, pcancel := context.WithTimeout(cctx, pollTimeout)
		err = pool.Ping(pctx)
		pcancel()
		if err == nil {
			break
		}
		if !sleepCtx(cctx, 200*time.Millisecond) {
			pool.Close()
			return nil, nil, fmt.Errorf("database not reachable within %s: %w", p.cfg.Connect, err)
		}
	}
	// No queues, no workers: this client only inserts.
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("river client: %w", err)
	}
	return pool, client, nil
}

// begin starts the load: the HTTP load when there is one (its own start
// line opens the load), else the agent's start line. It returns the load
// start and a channel closed when the HTTP load has ended.
func (p *producer) begin(ctx context.Context) (time.Time, <-chan struct{}, error) {
	done := make(chan struct{})
	if p.cfg.HTTP == nil {
		close(done)
		start := time.Now()
		enc := p.encoder()
		err := enc.EncodeStart(&record.Start{Type: record.TypeStart, LoadStart: start.UnixNano()})
		if err == nil {
			err = enc.Flush()
		}
		return start, done, err
	}
	started := &startSignal{JSONEncoder: p.encoder(), at: make(chan int64, 1)}
	go func() {
		defer close(done)
		sum, err := loadgen.Run(ctx, *p.cfg.HTTP, started)
		if err != nil {
			p.logf("/db load: %v", err)
			return
		}
		p.logf("/db load stopped by %s: %d requests", sum.StoppedBy, sum.Started)
	}()
	select {
	case ns := <-started.at:
		return time.Unix(0, ns), done, nil
	case <-done:
		return time.Time{}, done, errors.New("the /db load ended before it started")
	}
}

// startSignal passes loadgen's start line through and reports its time.
type startSignal struct {
	*loadgen.JSONEncoder
	at chan int64
}

// EncodeStart writes and flushes the start line, then reports it.
func (s *startSignal) EncodeStart(st *record.Start) error {
	err := s.JSONEncoder.EncodeStart(st)
	if ferr := s.JSONEncoder.Flush(); err == nil {
		err = ferr
	}
	s.at <- st.LoadStart
	return err
}

// insert inserts the jobs: one batch, or one at a time at the rate from
// start, until ctx ends. Each insert runs to its end (bounded) even when
// ctx ends during it, so every id the database gave is in the line.
func (p *producer) insert(ctx context.Context, client *river.Client[pgx.Tx], start time.Time, line *record.JobsLine) error {
	n, each := p.cfg.Count, p.cfg.Count
	if p.cfg.Rate > 0 {
		each = 1
	}
	for i := 0; i < n; i += each {
		if p.cfg.Rate > 0 && !sleepCtx(ctx, time.Until(start.Add(insertAt(i, p.cfg.Rate)))) {
			p.logf("load ended after %d of %d inserts", i, n)
			return nil
		}
		ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), insertTimeout)
		t0 := time.Now().UnixNano()
		ids, err := jobs.Insert(ictx, client, each, p.cfg.Args)
		cancel()
		if err != nil {
			return err
		}
		if line.FirstInsertNs == 0 {
			line.FirstInsertNs = t0
		}
		line.LastInsertNs = time.Now().UnixNano()
		line.IDs = append(line.IDs, ids...)
	}
	return nil
}

// settle polls the database until every inserted job is finalized, or
// (with a Quiet period) until nothing has moved for that long while no job
// is queued, or ctx ends. A failed poll is logged and retried: the ledger,
// read later, says what the database holds.
func (p *producer) settle(ctx context.Context, pool *pgxpool.Pool, line *record.JobsLine) {
	var lastErr error
	var last progress
	var lastMove time.Time
	for {
		qctx, cancel := context.WithTimeout(ctx, pollTimeout)
		pr, err := readProgress(qctx, pool, line.IDs)
		cancel()
		now := time.Now()
		switch {
		case err == nil && pr.finalized == len(line.IDs):
			line.Settled, line.SettledNs = true, now.UnixNano()
			return
		case err == nil:
			if pr.finalized != last.finalized || lastMove.IsZero() {
				p.progress(now, pr.finalized, len(line.IDs))
			}
			if pr != last || lastMove.IsZero() {
				last, lastMove = pr, now
			}
			if p.cfg.Quiet > 0 && pr.queued == 0 && now.Sub(lastMove) >= p.cfg.Quiet {
				line.QuietNs = now.UnixNano()
				p.logf("stopped waiting: nothing moved for %s with %d of %d jobs unfinished", p.cfg.Quiet,
					len(line.IDs)-pr.finalized, len(line.IDs))
				return
			}
		case ctx.Err() == nil && (lastErr == nil || err.Error() != lastErr.Error()):
			p.logf("settled query: %v (retrying)", err)
		}
		lastErr = err
		if !sleepCtx(ctx, p.cfg.Poll) {
			return
		}
	}
}

// progress writes a jobs_progress line (the live progress the runner
// shows); a failed write is left to the last line's flush to report.
func (p *producer) progress(now time.Time, finished, inserted int) {
	_ = p.encoder().EncodeLine(&record.JobsProgress{Type: record.TypeJobsProgress, TimeNs: now.UnixNano(),
		Finished: finished, Inserted: inserted})
	_ = p.encoder().Flush()
}

// progress is what the settle wait watches: jobs finalized, jobs queued
// (available, scheduled, retryable, pending), and the run and effect rows
// written so far (a step applied, a run begun or ended).
type progress struct {
	finalized, queued, runs, ended, effects int
}

// readProgress reads the progress of the jobs among ids.
func readProgress(ctx context.Context, pool *pgxpool.Pool, ids []int64) (progress, error) {
	var pr progress
	if len(ids) == 0 {
		return pr, nil
	}
	err := pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM river_job WHERE id = ANY($1) AND finalized_at IS NOT NULL),
		(SELECT count(*) FROM river_job WHERE id = ANY($1) AND state IN ('available', 'scheduled', 'retryable', 'pending')),
		(SELECT count(*) FROM shutdownlab_job_run WHERE job_id = ANY($1)),
		(SELECT count(*) FROM shutdownlab_job_run WHERE job_id = ANY($1) AND ended_at IS NOT NULL),
		(SELECT count(*) FROM shutdownlab_job_effect WHERE job_id = ANY($1))`, ids).
		Scan(&pr.finalized, &pr.queued, &pr.runs, &pr.ended, &pr.effects)
	return pr, err
}

// writeLine flushes the encoder and writes the jobs line, the last.
func (p *producer) writeLine(line record.JobsLine) error {
	if err := p.encoder().Flush(); err != nil {
		return err
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	_, err = p.out.Write(append(b, '\n'))
	return err
}

// sleepCtx sleeps d (nothing when d <= 0) and reports whether ctx is
// still live afterwards.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return ctx.Err() == nil
}
