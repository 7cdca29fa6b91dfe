package ws

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// Sink receives the driver's records as they happen; calls may come from
// many goroutines at once.
type Sink interface {
	Attempt(record.WSAttempt)
	Close(record.WSClose)
	Client(record.WSClient)
}

// Run runs the load of cfg until cfg.Duration has passed or ctx ends,
// then closes every connection (closing handshake, bounded by
// cfg.CloseTimeout) and gives each client's totals to sink. It returns an
// error only for an invalid cfg; outcomes are records.
func Run(ctx context.Context, cfg Config, sink Sink) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	var connIDs atomic.Uint64
	var wg sync.WaitGroup
	st := &started{fn: cfg.OnStarted}
	st.left.Store(int64(cfg.Clients))
	for i := range cfg.Clients {
		c := &client{id: i, cfg: cfg, sink: sink, connIDs: &connIDs, started: st,
			rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i))), track: newTracker(cfg.DedupeSize)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.run(ctx)
		}()
	}
	wg.Wait()
	return nil
}

// client is one long-lived client: one or more attempt chains (more than
// one only with the double-schedule bug) sharing its retry counter, its
// random source and its event accounting.
type client struct {
	id      int
	cfg     Config
	sink    Sink
	connIDs *atomic.Uint64
	started *started
	chains  sync.WaitGroup

	mu        sync.Mutex // guards the fields below
	rng       *rand.Rand
	retry     int
	track     *tracker
	attempts  int
	opened    int
	failed    int
	closes    int
	exhausted bool
}

// run runs the first chain, waits for every chain to end, and reports
// the client's totals.
func (c *client) run(ctx context.Context) {
	// The first chain runs on this goroutine (one goroutine per client
	// less: at 10 000 clients that is memory); a doubled schedule starts
	// the others.
	c.chains.Add(1)
	delay := c.cfg.Ramp * time.Duration(c.id) / time.Duration(c.cfg.Clients)
	if c.id < c.cfg.RawPeers {
		c.rawChain(ctx, delay)
	} else {
		c.chain(ctx, "start", delay, 0)
	}
	c.chains.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	w := record.WSClient{Type: record.TypeWSClient, Client: c.id, Attempts: c.attempts, Opened: c.opened,
		Failed: c.failed, Closes: c.closes, WSEventCounts: c.track.total, Unknown: c.track.delivered.missing(),
		Exhausted: c.exhausted}
	if lo, hi, ok := c.track.delivered.bounds(); ok {
		w.FirstSeq, w.LastSeq = lo, hi
	}
	c.sink.Client(w)
}

// chain makes attempts one after another: wait, attempt, and schedule the
// next by the policy, until the run ends or the attempts are used up. A
// doubled schedule starts another chain.
func (c *client) chain(ctx context.Context, cause string, delay time.Duration, retry int) {
	defer c.chains.Done()
	for {
		if !sleep(ctx, delay) {
			return // the run ended before this attempt: not made, not recorded
		}
		n, ok := c.take()
		if !ok {
			return
		}
		end := c.attempt(ctx, n, cause, delay, retry)
		if ctx.Err() != nil {
			return
		}
		causes := []string{"close"}
		if end.errored {
			causes = []string{"error"}
			if c.cfg.Policy.DoubleSchedule {
				causes = []string{"error", "close"}
			}
		}
		c.resetIfStable(end)
		for i, cs := range causes {
			r, d := c.next()
			if i == 0 {
				cause, retry, delay = cs, r, d
				continue
			}
			c.chains.Add(1)
			go c.chain(ctx, cs, d, r)
		}
	}
}

// take counts one more attempt, or reports that the budget is used up.
func (c *client) take() (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.attempts >= c.cfg.MaxAttempts {
		c.exhausted = true
		return 0, false
	}
	c.attempts++
	return c.attempts, true
}

// resetIfStable resets the retry counter after a connection that stayed
// open StableAfter (any open connection when StableAfter is 0).
func (c *client) resetIfStable(end connEnd) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if end.opened && end.openFor >= c.cfg.Policy.StableAfter {
		c.retry = 0
	}
}

// next takes the next retry and its delay; a doubled schedule takes two.
func (c *client) next() (retry int, delay time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	retry = c.retry
	c.retry++
	return retry, c.cfg.Policy.Delay(retry, c.rng)
}

// started calls fn once every client has made its first attempt.
type started struct {
	left atomic.Int64
	fn   func()
}

// done counts one client's first attempt.
func (s *started) done() {
	if s.left.Add(-1) == 0 && s.fn != nil {
		s.fn()
	}
}

// sleep waits d or until ctx ends; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
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
