package targetapp

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/shutdownlab/shutdownlab/jobs"
	"github.com/shutdownlab/shutdownlab/record"
)

// WorkerStartTimeout bounds the worker's start (connect, migrate, start
// the River client) in Main.
const WorkerStartTimeout = 30 * time.Second

// poolCloseWait bounds the wait for the pool's Close (it waits for every
// checked-out connection to come back).
const poolCloseWait = 5 * time.Second

// worker is the queue-worker role (WORKER=on): a River client working
// jobs.StepArgs beside HTTP over one pool, the pool /db uses too.
type worker struct {
	cfg    WorkerConfig
	mode   Mode
	log    *Logger
	now    func() time.Time
	poke   func() // wakes the drain
	pool   *pgxpool.Pool
	conns  *connSet
	client *river.Client[pgx.Tx]
	counts *jobs.Counters

	stopOnce sync.Once
	stopDone chan struct{} // closed when the client's stop returned
	poolOnce sync.Once

	mu       sync.Mutex // guards the fields below
	stopping bool
	reported bool                 // worker_stopped logged
	base     jobs.CounterSnapshot // the counters when the stop began
}

// StartWorker starts the queue worker when WORKER=on (and does nothing
// otherwise): a pool on DATABASE_URL, jobs.Migrate, and a River client
// with ID $INSTANCE (the hostname when empty), then logs "worker_up". It
// gives up when ctx ends; the error names DATABASE_URL's host, never its
// password. Call it once, before Run.
func (a *App) StartWorker(ctx context.Context) error {
	if !a.cfg.Worker.On {
		return nil
	}
	w, err := startWorker(ctx, a.cfg, a.log, a.now, a.poke)
	if err != nil {
		return fmt.Errorf("worker: DATABASE_URL host %s: %s", dbHost(a.cfg.Worker.DatabaseURL),
			redact(err.Error(), a.cfg.Worker.DatabaseURL))
	}
	a.worker = w
	a.log.Log(record.Event{Event: record.EventWorkerUp, Mode: string(a.cfg.Mode), Msg: a.cfg.Worker.summary()})
	return nil
}

func startWorker(ctx context.Context, cfg Config, log *Logger, now func() time.Time, poke func()) (*worker, error) {
	id := cfg.Instance
	if id == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			h = fmt.Sprintf("target-%d", os.Getpid())
		}
		id = h
	}
	pcfg, err := pgxpool.ParseConfig(cfg.Worker.DatabaseURL)
	if err != nil {
		return nil, err
	}
	conns := &connSet{m: map[*pgconn.PgConn]struct{}{}}
	pcfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error { conns.add(c.PgConn()); return nil }
	pcfg.BeforeClose = func(c *pgx.Conn) { conns.remove(c.PgConn()) }
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, err
	}
	w := &worker{cfg: cfg.Worker, mode: cfg.Mode, log: log, now: now, poke: poke, pool: pool, conns: conns,
		counts: &jobs.Counters{}, stopDone: make(chan struct{})}
	if err := w.start(ctx, id); err != nil {
		pool.Close()
		return nil, err
	}
	return w, nil
}

// start pings, migrates and starts the River client, bounded by ctx.
func (w *worker) start(ctx context.Context, id string) error {
	if err := w.pool.Ping(ctx); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	if _, err := jobs.Migrate(ctx, w.pool); err != nil {
		return err
	}
	soft := time.Duration(0) // close mode: wait for running jobs however long
	if w.mode == ModeFull {
		soft = w.cfg.Deadline // 0: StopAndCancel at the signal (stopWorker)
	}
	c, err := jobs.NewClient(w.pool, jobs.ClientOptions{
		ID: id, MaxWorkers: w.cfg.Concurrency, SoftStopTimeout: soft,
		RescueStuckJobsAfter: w.cfg.RescueAfter, Counters: w.counts,
		// River's warnings (the soft stop timeout, completer errors) go
		// to stderr: stdout is the lifecycle log.
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	w.client = c
	// Start's context must outlive the start (cancelling it stops the
	// client), so the bound is applied around it.
	started := make(chan error, 1)
	go func() { started <- c.Start(context.Background()) }()
	select {
	case err := <-started:
		if err != nil {
			return fmt.Errorf("starting the River client: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("starting the River client: %w", ctx.Err())
	}
}

// beginStop starts the worker's stop once, for a signal at signalAt: it
// logs "worker_stopping" and stops the client in the background (full
// mode: Client.Stop with SoftStopTimeout = WORKER_DEADLINE_MS, or
// StopAndCancel when it is 0; close mode: Client.Stop, waiting for
// running jobs however long). When the stop returns it logs
// "worker_stopped" and wakes the drain.
func (w *worker) beginStop(signalAt time.Time) {
	w.stopOnce.Do(func() {
		w.mu.Lock()
		w.stopping = true
		w.base = w.counts.Snapshot()
		w.mu.Unlock()
		hard := w.mode == ModeFull && w.cfg.Deadline == 0
		how := "soft stop: stop fetching, wait for running jobs (no deadline)"
		switch {
		case hard:
			how = "hard stop: stop fetching, cancel running jobs now (deadline_ms=0)"
		case w.mode == ModeFull:
			how = fmt.Sprintf("soft stop: stop fetching, cancel running jobs at deadline_ms=%d", w.cfg.Deadline.Milliseconds())
		}
		w.log.Log(record.Event{Event: record.EventWorkerStopping, Ms: msp(w.now().Sub(signalAt)), Msg: how})
		go func() {
			var err error
			if hard {
				err = w.client.StopAndCancel(context.Background())
			} else {
				err = w.client.Stop(context.Background())
			}
			w.report(signalAt, err, false)
			close(w.stopDone)
			w.poke()
		}()
	})
}

// stopped reports whether the stop has returned.
func (w *worker) stopped() bool {
	select {
	case <-w.stopDone:
		return true
	default:
		return false
	}
}

// report logs "worker_stopped" once: JobsCut counts the executions cut
// at a checkpoint since the stop began, JobsRunning those still inside
// Work (nonzero when the drain deadline gave up on them). It returns
// JobsRunning.
func (w *worker) report(signalAt time.Time, stopErr error, gaveUp bool) int {
	s := w.counts.Snapshot()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reported {
		return 0
	}
	w.reported = true
	msg := fmt.Sprintf("completed=%d failed=%d since the stop began", s.Completed-w.base.Completed, s.Failed-w.base.Failed)
	if gaveUp {
		msg = "gave up at the drain deadline, the stop had not returned; " + msg
	}
	if stopErr != nil {
		msg += "; stop: " + stopErr.Error()
	}
	w.log.Log(record.Event{Event: record.EventWorkerStopped, Ms: msp(w.now().Sub(signalAt)),
		JobsCut: intp(s.Cut - w.base.Cut), JobsRunning: intp(s.Running), Msg: msg})
	return s.Running
}

// closePool closes the pool once and logs "pool_closed". With hard set
// (POOL_CLOSE=first) it first closes every connection under its user, as
// a pool that does not wait for its borrowers does (pgxpool's own Close
// would wait for each checked-out connection), so queries in flight fail.
// The wait is bounded by poolCloseWait; a close still waiting then is
// logged as such.
func (w *worker) closePool(signalAt time.Time, hard bool) {
	w.poolOnce.Do(func() {
		n := 0
		if hard {
			n = w.conns.closeAll()
		}
		done := make(chan struct{})
		go func() { w.pool.Close(); close(done) }()
		ev := record.Event{Event: record.EventPoolClosed}
		if hard {
			ev.Msg = fmt.Sprintf("closed first, under %d connection(s) in use or idle", n)
		}
		select {
		case <-done:
		case <-time.After(poolCloseWait):
			ev.Msg = fmt.Sprintf("Close still waiting for checked-out connections after %s", poolCloseWait)
		}
		ev.Ms = msp(w.now().Sub(signalAt))
		w.log.Log(ev)
	})
}

// shutdown stops the client now (cancelling running jobs) and closes the
// pool, both bounded (App.Close, for tests).
func (w *worker) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := w.client.StopAndCancel(ctx)
	w.poolOnce.Do(w.pool.Close)
	return err
}

// connSet is the pool's connections (those River hijacks for LISTEN
// included), so POOL_CLOSE=first can close them under their users.
type connSet struct {
	mu sync.Mutex
	m  map[*pgconn.PgConn]struct{}
}

func (s *connSet) add(c *pgconn.PgConn) {
	s.mu.Lock()
	s.m[c] = struct{}{}
	s.mu.Unlock()
}

func (s *connSet) remove(c *pgconn.PgConn) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
}

// closeAll closes every connection's socket (safe while another
// goroutine uses it: its read or write fails) and returns how many.
func (s *connSet) closeAll() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.m {
		if nc := c.Conn(); nc != nil && nc.Close() == nil {
			n++
		}
	}
	return n
}
