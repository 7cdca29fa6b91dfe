package ws

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
)

// The two clients BenchmarkHold pairs.

// minimalClient is the library's own minimal client: Dial, then Read
// until the connection ends, counting messages.
type minimalClient struct {
	ok, bad, msgs atomic.Int64
	mu            sync.Mutex
	conns         []*websocket.Conn
	wg            sync.WaitGroup
}

func (m *minimalClient) start(ctx context.Context, url string, n int, ramp time.Duration) {
	for i := range n {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			if !sleep(ctx, ramp*time.Duration(i)/time.Duration(n)) {
				return
			}
			hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			c, _, err := websocket.Dial(hctx, url, nil)
			cancel()
			if err != nil {
				m.bad.Add(1)
				return
			}
			m.ok.Add(1)
			m.mu.Lock()
			m.conns = append(m.conns, c)
			m.mu.Unlock()
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					return
				}
				m.msgs.Add(1)
			}
		}()
	}
}

func (m *minimalClient) opened() int64   { return m.ok.Load() }
func (m *minimalClient) failed() int64   { return m.bad.Load() }
func (m *minimalClient) received() int64 { return m.msgs.Load() }

func (m *minimalClient) stop(*testing.B) int64 {
	m.mu.Lock()
	for _, c := range m.conns {
		go func() { _ = c.Close(websocket.StatusNormalClosure, "") }()
	}
	m.mu.Unlock()
	m.wg.Wait()
	return m.msgs.Load()
}

// driverClient is ws.Run recording to io.Discard through a LineSink, with
// the agent's default dedupe cache; it also tallies the records for the
// accounting check.
type driverClient struct {
	LineSink
	mu      sync.Mutex
	tally   record.WSTally
	ok, bad atomic.Int64
	msgs    atomic.Int64
	done    chan error
}

func (d *driverClient) Attempt(a record.WSAttempt) {
	if a.Class == record.ClassOK {
		d.ok.Add(1)
	} else {
		d.bad.Add(1)
	}
	d.LineSink.Attempt(a)
	d.mu.Lock()
	d.tally.AddAttempt(a)
	d.mu.Unlock()
}

func (d *driverClient) Close(c record.WSClose) {
	d.msgs.Add(int64(c.Received))
	d.LineSink.Close(c)
	d.mu.Lock()
	d.tally.AddClose(c)
	d.mu.Unlock()
}

func (d *driverClient) Client(c record.WSClient) {
	d.LineSink.Client(c)
	d.mu.Lock()
	d.tally.AddClient(c)
	d.mu.Unlock()
}

func (d *driverClient) start(ctx context.Context, url string, n int, ramp time.Duration) {
	d.W, d.done = io.Discard, make(chan error, 1)
	cfg := Config{URL: url, Clients: n, Policy: Policy{Kind: Immediate}, MaxAttempts: 1, DedupeSize: 1024,
		Duration: time.Hour, Ramp: ramp, CloseTimeout: 10 * time.Second}
	go func() { d.done <- Run(ctx, cfg, d) }()
}

func (d *driverClient) opened() int64   { return d.ok.Load() }
func (d *driverClient) failed() int64   { return d.bad.Load() }
func (d *driverClient) received() int64 { return -1 }

func (d *driverClient) stop(b *testing.B) int64 {
	if err := <-d.done; err != nil {
		b.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, err := range record.CheckWSAccounting(&d.tally) {
		b.Error(err)
	}
	return d.msgs.Load()
}
