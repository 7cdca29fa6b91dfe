package loadgen

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// HostileLoad is a bounded run of hostile attempts (HostileRequest), one
// record.Request each, written through an Encoder like Run's: a Start
// line, the requests, a Summary whose counts add up.
type HostileLoad struct {
	// Request is what every attempt sends; its Kind says how.
	Request HostileRequest
	// Clients bounds the attempts in flight at once (default 1). With
	// Rate 0 (closed loop) each client starts its next attempt when the
	// previous one has ended.
	Clients int
	// Rate, when > 0, starts an attempt every 1/Rate s (open loop); a
	// slot that finds Clients attempts in flight is recorded not_sent,
	// never queued.
	Rate float64
	// Duration is how long attempts are started (default 10 s).
	Duration time.Duration
	// MaxAttempts bounds the attempts accounted, not_sent slots included
	// (default 1000).
	MaxAttempts int
	// Drain is how long attempts in flight when starting stops may take;
	// then they are cut off as timeout ("agent stopping") (default 10 s).
	Drain time.Duration
	// IDPrefix starts every X-Request-Id: "<IDPrefix>-<seq>" (default "h").
	IDPrefix string
}

func (l HostileLoad) withDefaults() (HostileLoad, error) {
	if l.Clients == 0 {
		l.Clients = 1
	}
	if l.Duration == 0 {
		l.Duration = DefaultDuration
	}
	if l.MaxAttempts == 0 {
		l.MaxAttempts = 1000
	}
	if l.Drain == 0 {
		l.Drain = DefaultDrain
	}
	if l.IDPrefix == "" {
		l.IDPrefix = "h"
	}
	switch {
	case l.Clients < 0 || l.Clients > 10000:
		return l, fmt.Errorf("hostile load: clients=%d: must be in 1..10000", l.Clients)
	case l.Rate < 0 || l.Rate > 100000:
		return l, fmt.Errorf("hostile load: rate=%v: must be in 0..100000 attempts per second", l.Rate)
	case l.Duration < 0 || l.MaxAttempts < 0 || l.Drain < 0:
		return l, fmt.Errorf("hostile load: duration, max attempts and drain must be >= 0")
	}
	var err error
	l.Request, err = l.Request.withDefaults()
	return l, err
}

// hostileRun is one RunHostile's shared state.
type hostileRun struct {
	l       HostileLoad
	enc     Encoder
	hardCtx context.Context // ends at Duration + Drain, or with the caller's
	seq     atomic.Uint64   // attempts (and slots) accounted
	conn    atomic.Uint64
	mu      sync.Mutex
	sum     record.Summary
	encErr  error
}

// next reserves the next sequence number; false when MaxAttempts is
// reached.
func (r *hostileRun) next() (uint64, bool) {
	n := r.seq.Add(1)
	return n, n <= uint64(r.l.MaxAttempts)
}

func (r *hostileRun) id(seq uint64) string { return r.l.IDPrefix + "-" + strconv.FormatUint(seq, 10) }

func (r *hostileRun) account(rec *record.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sum.Started++
	r.sum.ByClass[rec.Class]++
	if err := r.enc.EncodeRequest(rec); err != nil && r.encErr == nil {
		r.encErr = err
	}
}

// attempt makes attempt seq on behalf of worker and accounts for it;
// sched is its open-loop slot (0 in a closed loop).
func (r *hostileRun) attempt(seq uint64, worker int, sched int64) {
	rec, err := Hostile(r.hardCtx, r.l.Request, r.id(seq), worker, r.conn.Add(1))
	if err != nil { // checked by withDefaults: cannot happen
		rec = record.Request{Type: record.TypeRequest, ID: r.id(seq), Start: now(), End: now(), Class: record.ClassNotSent, Error: err.Error()}
	}
	rec.Scheduled = sched
	r.account(&rec)
}

// RunHostile runs l until Duration has passed, MaxAttempts are accounted
// or ctx ends, and returns the summary it wrote last.
func RunHostile(ctx context.Context, l HostileLoad, enc Encoder) (record.Summary, error) {
	l, err := l.withDefaults()
	if err != nil {
		return record.Summary{}, err
	}
	startCtx, cancelStart := context.WithTimeout(ctx, l.Duration)
	defer cancelStart()
	hardCtx, cancelHard := context.WithTimeout(ctx, l.Duration+l.Drain)
	defer cancelHard()
	r := &hostileRun{l: l, enc: enc, hardCtx: hardCtx,
		sum: record.Summary{Type: record.TypeSummary, ByClass: map[record.Class]int{}}}
	r.sum.LoadStart = now()
	if err := enc.EncodeStart(&record.Start{Type: record.TypeStart, LoadStart: r.sum.LoadStart}); err != nil {
		return record.Summary{}, err
	}
	// The start line goes out at once (the runner times its action from
	// it), the records every flushEvery, as Run's.
	stopFlush := r.flushing()
	if l.Rate > 0 {
		r.open(startCtx)
	} else {
		r.closed(startCtx)
	}
	stopFlush()
	r.sum.LoadEnd = now()
	switch {
	case ctx.Err() != nil:
		r.sum.StoppedBy = record.StoppedBySignal
	case r.seq.Load() > uint64(l.MaxAttempts):
		r.sum.StoppedBy = record.StoppedByCount
	default:
		r.sum.StoppedBy = record.StoppedByDuration
	}
	if err := enc.EncodeSummary(&r.sum); err != nil {
		return r.sum, err
	}
	if f, ok := enc.(Flusher); ok {
		if err := f.Flush(); err != nil {
			return r.sum, err
		}
	}
	return r.sum, r.encErr
}

// flushing flushes a buffering encoder now and every flushEvery until the
// returned stop is called (which waits for the flusher to return).
func (r *hostileRun) flushing() (stop func()) {
	f, ok := r.enc.(Flusher)
	if !ok {
		return func() {}
	}
	flush := func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := f.Flush(); err != nil && r.encErr == nil {
			r.encErr = err
		}
	}
	flush()
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(flushEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				flush()
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-exited }
}

// closed runs Clients clients back to back until startCtx ends or the
// count is reached, then waits for their last attempts.
func (r *hostileRun) closed(startCtx context.Context) {
	var wg sync.WaitGroup
	for w := range r.l.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for startCtx.Err() == nil {
				seq, ok := r.next()
				if !ok {
					return
				}
				r.attempt(seq, w, 0)
			}
		}()
	}
	wg.Wait()
}

// open starts an attempt every 1/Rate s while fewer than Clients are in
// flight; a slot that finds them all busy is not_sent.
func (r *hostileRun) open(startCtx context.Context) {
	var wg sync.WaitGroup
	slots := make(chan int, r.l.Clients)
	for w := range r.l.Clients {
		slots <- w
	}
	period := time.Duration(float64(time.Second) / r.l.Rate)
	t0 := time.Now()
	for i := 0; ; i++ {
		if i > 0 {
			wait := time.NewTimer(time.Until(t0.Add(time.Duration(i) * period)))
			select {
			case <-startCtx.Done():
				wait.Stop()
				wg.Wait()
				return
			case <-wait.C:
			}
		}
		if startCtx.Err() != nil {
			break
		}
		seq, ok := r.next()
		if !ok {
			break
		}
		sched := t0.Add(time.Duration(i) * period).UnixNano()
		select {
		case w := <-slots:
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.attempt(seq, w, sched)
				slots <- w
			}()
		default:
			t := now()
			r.account(&record.Request{Type: record.TypeRequest, ID: r.id(seq), Method: r.l.Request.Method,
				Path: r.l.Request.Path, Worker: -1, Scheduled: sched, Start: t, End: t, Class: record.ClassNotSent,
				Hostile: r.l.Request.Kind, Error: fmt.Sprintf("all %d clients busy", r.l.Clients)})
		}
	}
	wg.Wait()
}
