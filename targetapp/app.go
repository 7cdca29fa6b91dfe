package targetapp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// LedgerFile and HandlerJobFile are the file names written under DATA_DIR
// (defined in record, where the runner reads them back).
const (
	LedgerFile     = record.LedgerFile
	HandlerJobFile = record.HandlerJobFile
)

// App is one target app: its HTTP server, its readiness, its counters of
// in-flight requests, open connections and the running job, and its drain
// logic (see Drain and StockShutdown). Create it with New, serve with Serve,
// release it with Close.
type App struct {
	cfg Config
	log *Logger
	now func() time.Time
	srv *http.Server

	ready    atomic.Bool
	ledgerMu sync.Mutex // serializes ledger appends
	ledger   *os.File

	mu       sync.Mutex // guards the fields below
	inflight int
	conns    map[net.Conn]connInfo
	job      jobState
	ln       net.Listener
	lnClosed bool
	draining bool

	ws     *wsHub  // the /events streams
	worker *worker // the queue worker (WORKER=on, StartWorker); nil otherwise

	changed  chan struct{} // poked when a counter drops; capacity 1
	bgCtx    context.Context
	bgCancel context.CancelFunc
	jobWG    sync.WaitGroup
}

// connInfo is the last state a connection reported and when.
type connInfo struct {
	state http.ConnState
	since time.Time
}

// Option configures an App.
type Option func(*App)

// WithClock makes the App read wall-clock time from now (for drain and
// deadline durations). Timers still run on real time.
func WithClock(now func() time.Time) Option {
	return func(a *App) { a.now = now }
}

// New returns an App for cfg that logs lifecycle events to log. It creates
// cfg.DataDir if needed and opens the ledger for appending; an error there
// means the app cannot do its job.
func New(cfg Config, log *Logger, opts ...Option) (*App, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(cfg.DataDir, LedgerFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	a := &App{
		cfg:     cfg,
		log:     log,
		now:     time.Now,
		ledger:  f,
		conns:   make(map[net.Conn]connInfo),
		changed: make(chan struct{}, 1),
	}
	for _, o := range opts {
		o(a)
	}
	a.bgCtx, a.bgCancel = context.WithCancel(context.Background())
	a.ws = newWSHub(cfg)
	go a.ws.events.run(a.bgCtx)
	a.ready.Store(true)
	a.srv = &http.Server{
		Handler: a.Handler(),
		// 0 falls back to ReadTimeout, also 0: no idle timeout.
		IdleTimeout: cfg.KeepAlive,
		ConnState:   a.connState,
	}
	return a, nil
}

// Config returns the configuration the App was built with.
func (a *App) Config() Config { return a.cfg }

// Ready reports whether /readyz answers 200.
func (a *App) Ready() bool { return a.ready.Load() }

// Inflight returns the number of /slow, /write and /db requests being served.
func (a *App) Inflight() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inflight
}

// Conns returns the number of open connections (any state but closed).
func (a *App) Conns() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.conns)
}

// Serve accepts connections on ln until the listener is closed. It returns
// nil when the App closed the listener itself (drain or shutdown), and the
// accept error otherwise.
func (a *App) Serve(ln net.Listener) error {
	if !a.setListener(ln) {
		return nil
	}
	err := a.srv.Serve(ln)
	a.mu.Lock()
	ours := a.lnClosed
	a.mu.Unlock()
	if ours || errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Close releases everything: it closes the server and every connection,
// stops a running job (without COMMIT), stops the queue worker (cancelling
// its jobs) and closes its pool, and closes the ledger. Tests use it; the
// process simply exits instead.
func (a *App) Close() error {
	a.mu.Lock()
	a.lnClosed = true
	a.mu.Unlock()
	err := a.srv.Close()
	a.ws.closeStreams() // srv.Close does not close hijacked connections
	a.bgCancel()
	a.jobWG.Wait()
	if a.worker != nil {
		err = errors.Join(err, a.worker.shutdown())
	}
	a.ledgerMu.Lock()
	defer a.ledgerMu.Unlock()
	return errors.Join(err, a.ledger.Close())
}

// connState tracks connections for the sweep and the drain.
func (a *App) connState(c net.Conn, s http.ConnState) {
	a.mu.Lock()
	switch s {
	case http.StateClosed, http.StateHijacked:
		delete(a.conns, c)
	default:
		a.conns[c] = connInfo{state: s, since: time.Now()}
	}
	a.mu.Unlock()
	a.poke()
}

// poke wakes a waiting drain without blocking.
func (a *App) poke() {
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

// setListener records ln as the listener to close in step 3. If the drain
// has already closed the listener, it closes ln too and reports false.
func (a *App) setListener(ln net.Listener) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ln = ln
	if a.lnClosed {
		_ = ln.Close()
		return false
	}
	return true
}

// closeListener closes the listener Serve runs on, once; a later Serve
// refuses to start.
func (a *App) closeListener() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lnClosed {
		return
	}
	a.lnClosed = true
	if a.ln != nil {
		_ = a.ln.Close()
	}
}

// sweep closes idle keep-alive connections, and connections that have sent
// nothing for at least minNew since they were accepted. It returns how many
// it closed. A client may have just written a request onto an idle socket:
// that request is lost, which is what the harness measures (P7).
func (a *App) sweep(minNew time.Duration) int {
	now := time.Now()
	n := 0
	a.mu.Lock()
	defer a.mu.Unlock()
	for c, ci := range a.conns {
		if ci.state == http.StateIdle || (ci.state == http.StateNew && now.Sub(ci.since) >= minNew) {
			_ = c.Close()
			n++
		}
	}
	return n
}

// sleepCtx waits d or until ctx ends; it reports whether d elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
