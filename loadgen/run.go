package loadgen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// Stop reasons, as in record.Summary.StoppedBy (defined there).
const (
	// StoppedByDuration: Config.Duration elapsed.
	StoppedByDuration = record.StoppedByDuration
	// StoppedByCount: Config.MaxRequests requests were accounted.
	StoppedByCount = record.StoppedByCount
	// StoppedBySignal: the context was cancelled (the agent got SIGTERM or
	// SIGINT), or the Encoder failed.
	StoppedBySignal = record.StoppedBySignal
)

// flushEvery is how often Run flushes a buffering Encoder during the run.
const flushEvery = 200 * time.Millisecond

// runner is the state of one Run.
type runner struct {
	cfg     Config
	enc     Encoder
	entries []*preparedEntry
	cum     []int // cumulative weights
	total   int

	seq    atomic.Uint64 // last request sequence number handed out
	connID atomic.Uint64 // last connection id handed out
	counts [8]atomic.Int64

	stopOnce  sync.Once
	stopCh    chan struct{} // closed when the load stops
	stoppedBy string
	stopAt    int64

	hardCtx    context.Context // cancelled when the drain bound expires
	hardCancel context.CancelFunc

	clientsMu sync.Mutex
	clients   []*client

	encErr atomic.Pointer[error]
}

// Run drives one bounded run against cfg.Target and writes its lines to enc:
// a record.Start just before the first request, a record.Request per
// accounted request and a record.Summary last. It stops by itself after
// cfg.Duration or cfg.MaxRequests, or when ctx is cancelled (StoppedBy
// "signal"); it then stops starting requests, lets in-flight requests finish
// for up to cfg.Drain and cuts off the rest as timeout ("agent stopping").
// Defaults are applied to cfg first. The error is a *ValidationError for a
// bad cfg, or the first error enc returned (the run then stops as if
// cancelled, and the summary is still attempted).
func Run(ctx context.Context, cfg Config, enc Encoder) (record.Summary, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return record.Summary{}, err
	}
	r := newRunner(cfg, enc)
	defer r.hardCancel()

	if !cfg.StartAt.IsZero() {
		if d := time.Until(cfg.StartAt); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
	}

	loadStart := time.Now()
	r.encode(func() error {
		return enc.EncodeStart(&record.Start{Type: record.TypeStart, LoadStart: loadStart.UnixNano()})
	})
	if ctx.Err() != nil {
		r.stop(StoppedBySignal)
	}

	var wg sync.WaitGroup
	switch cfg.Shape {
	case ShapeClosed:
		for w := 0; w < cfg.Clients; w++ {
			c := r.addClient(w)
			wg.Go(func() { r.closedLoop(c) })
		}
	case ShapeOpen:
		r.startOpen(&wg, loadStart)
	}
	for i, o := range cfg.Once {
		c := r.addClient(cfg.Clients + cfg.Workers + i)
		e := prepare(o.Entry, cfg.Host)
		wg.Go(func() { r.once(c, e, loadStart.Add(o.At)) })
	}

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	r.supervise(ctx, loadStart, done)

	loadEnd := time.Now().UnixNano()
	sum := record.Summary{Type: record.TypeSummary, ByClass: map[record.Class]int{}, LoadStart: loadStart.UnixNano(), LoadEnd: loadEnd, StoppedBy: r.stoppedBy}
	for i, cl := range record.Classes {
		n := int(r.counts[i].Load())
		sum.ByClass[cl] = n
		sum.Started += n
	}
	r.encode(func() error { return enc.EncodeSummary(&sum) })
	if f, ok := enc.(Flusher); ok {
		r.encode(f.Flush)
	}
	if p := r.encErr.Load(); p != nil {
		return sum, *p
	}
	return sum, nil
}

// newRunner prepares a run of a defaulted, valid cfg.
func newRunner(cfg Config, enc Encoder) *runner {
	r := &runner{cfg: cfg, enc: enc, stopCh: make(chan struct{})}
	for _, e := range cfg.Mix {
		r.entries = append(r.entries, prepare(e, cfg.Host))
		r.total += e.Weight
		r.cum = append(r.cum, r.total)
	}
	r.hardCtx, r.hardCancel = context.WithCancel(context.Background())
	return r
}

// supervise waits for the load to end, flushing periodically, enforcing the
// duration bound, turning ctx cancellation into a stop and, once stopped,
// the drain bound. It returns when every worker has returned.
func (r *runner) supervise(ctx context.Context, loadStart time.Time, done <-chan struct{}) {
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	dur := time.NewTimer(time.Until(loadStart.Add(r.cfg.Duration)))
	defer dur.Stop()
	var drain <-chan time.Time
	ctxDone := ctx.Done()
	stopCh := r.stopCh
	for {
		select {
		case <-done:
			return
		case <-flush.C:
			if f, ok := r.enc.(Flusher); ok {
				r.encode(f.Flush)
			}
		case <-dur.C:
			r.stop(StoppedByDuration)
		case <-ctxDone:
			ctxDone = nil
			r.stop(StoppedBySignal)
		case <-stopCh:
			stopCh = nil
			t := time.NewTimer(r.cfg.Drain)
			defer t.Stop()
			drain = t.C
		case <-drain:
			drain = nil
			r.kill()
		}
	}
}

// stop ends the load (first reason wins).
func (r *runner) stop(reason string) {
	r.stopOnce.Do(func() {
		r.stoppedBy = reason
		r.stopAt = now()
		close(r.stopCh)
	})
}

func (r *runner) stopped() bool {
	select {
	case <-r.stopCh:
		return true
	default:
		return false
	}
}

// kill cuts off every in-flight request and dial: the drain bound expired.
func (r *runner) kill() {
	r.clientsMu.Lock()
	for _, c := range r.clients {
		c.kill()
	}
	r.clientsMu.Unlock()
	r.hardCancel()
}

func (r *runner) addClient(worker int) *client {
	c := newClient(r, worker)
	r.clientsMu.Lock()
	r.clients = append(r.clients, c)
	r.clientsMu.Unlock()
	return c
}

// encode calls an encoder method; the first error stops the run.
func (r *runner) encode(f func() error) {
	if err := f(); err != nil {
		r.encodeFailed(err)
	}
}

// encodeFailed keeps the first encoder error and stops the run. (A separate
// function so that err does not escape on the hot path.)
func (r *runner) encodeFailed(err error) {
	r.encErr.CompareAndSwap(nil, &err)
	r.stop(StoppedBySignal)
}

// emit accounts rec in its class and writes it.
func (r *runner) emit(rec *record.Request) {
	for i, cl := range record.Classes {
		if cl == rec.Class {
			r.counts[i].Add(1)
			break
		}
	}
	if err := r.enc.EncodeRequest(rec); err != nil {
		r.encodeFailed(err)
	}
}

// once sends one one-off request at t on c's own connection, or records it
// as not_sent if the load stops first.
func (r *runner) once(c *client, e *preparedEntry, t time.Time) {
	defer c.closeConn()
	var rec record.Request
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
		c.do(&rec, e, r.seq.Add(1), t.UnixNano())
	case <-r.stopCh:
		at := now()
		rec = record.Request{Type: record.TypeRequest, ID: fmt.Sprintf("%s-once-%d", r.cfg.IDPrefix, c.worker), Method: e.Method, Path: e.Path,
			Worker: c.worker, Scheduled: t.UnixNano(), Start: at, End: at, Class: record.ClassNotSent, Error: "load stopped before its time"}
	}
	r.emit(&rec)
}

// rng returns the mix RNG for stream i (a client, or the open-loop pacer).
func (r *runner) rng(i int) *rand.Rand {
	return rand.New(rand.NewPCG(r.cfg.Seed, uint64(i)+1))
}

// pick draws a mix entry by weight.
func (r *runner) pick(rng *rand.Rand) *preparedEntry {
	if len(r.entries) == 1 {
		return r.entries[0]
	}
	n := rng.IntN(r.total)
	for i, c := range r.cum {
		if n < c {
			return r.entries[i]
		}
	}
	return r.entries[len(r.entries)-1]
}

// closedLoop is one closed-loop client: next request when the previous one
// ended, until the load stops or the count bound is reached.
func (r *runner) closedLoop(c *client) {
	defer c.closeConn()
	if !r.staggerStart(c.worker) {
		return
	}
	rng := r.rng(c.worker)
	var rec record.Request
	var think *time.Timer
	for !r.stopped() {
		seq := r.seq.Add(1)
		if seq > uint64(r.cfg.MaxRequests) {
			r.stop(StoppedByCount)
			return
		}
		c.do(&rec, r.pick(rng), seq, 0)
		r.emit(&rec)
		if seq == uint64(r.cfg.MaxRequests) {
			r.stop(StoppedByCount)
		}
		pause := r.cfg.Think
		if rec.Class != record.ClassOK && r.cfg.FailPause > pause {
			pause = r.cfg.FailPause
		}
		if pause > 0 {
			if think == nil {
				think = time.NewTimer(pause)
			} else {
				think.Reset(pause)
			}
			select {
			case <-think.C:
			case <-r.stopCh:
				return
			}
		}
	}
}

// staggerStart delays closed-loop client w by its share of Stagger
// (w*Stagger/Clients); false when the load stopped meanwhile.
func (r *runner) staggerStart(w int) bool {
	d := r.cfg.Stagger * time.Duration(w) / time.Duration(r.cfg.Clients)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.stopCh:
		return false
	}
}
