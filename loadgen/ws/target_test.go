package ws

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/targetapp"
)

// startTarget serves the Go target's /events on 127.0.0.1 at 1000 events
// per second with a replay buffer of replay events.
func startTarget(t *testing.T, replay int) string {
	t.Helper()
	cfg := targetapp.DefaultConfig()
	cfg.Host, cfg.Port, cfg.DataDir = "127.0.0.1", 0, t.TempDir()
	cfg.EventsPerS, cfg.EventsReplay = 1000, replay
	a, err := targetapp.New(cfg, targetapp.NewLogger(io.Discard, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Serve(ln) }()
	return ln.Addr().String()
}

// cutProxy forwards TCP to target until cut: then it drops every
// connection and refuses new ones until restored.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  []net.Conn
}

func startProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	t.Cleanup(func() { _ = ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
		go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
	}
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

func (p *cutProxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// observe follows the target's stream directly and returns its latest
// sequence number as it goes.
func observe(t *testing.T, target string) *atomic.Int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+target+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CloseNow() })
	var last atomic.Int64
	go func() {
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				return
			}
			var f record.WSFrame
			if json.Unmarshal(b, &f) == nil {
				last.Store(f.Seq)
			}
		}
	}()
	return &last
}

// waitFor polls cond every 5 ms for at most 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// W5 end to end against the Go target: a client's connection is cut while
// events go on, and it reconnects with a cursor that overlaps by 3. With a
// replay buffer it misses nothing and its cache rejects exactly the
// overlap; without one the missed events are an explicit unknown gap.
func TestResumeAgainstGoTarget(t *testing.T) {
	for _, tt := range []struct {
		name   string
		replay int
	}{{"replay", 100000}, {"no replay", 0}} {
		t.Run(tt.name, func(t *testing.T) {
			target := startTarget(t, tt.replay)
			obs := observe(t, target)
			waitFor(t, "the stream", func() bool { return obs.Load() > 0 })
			p := startProxy(t, target)
			s := &memSink{}
			opened := func() int {
				s.mu.Lock()
				defer s.mu.Unlock()
				n := 0
				for _, a := range s.attempts {
					if a.Class == record.ClassOK {
						n++
					}
				}
				return n
			}
			cfg := Config{URL: "ws://" + p.ln.Addr().String() + "/events", Clients: 1, MaxAttempts: 1000,
				Duration: 30 * time.Second, Resume: true, ResumeOverlap: 3, DedupeSize: 100,
				Policy: Policy{Kind: Exponential, Base: 5 * time.Millisecond, Cap: 20 * time.Millisecond}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- Run(ctx, cfg, s) }()
			waitFor(t, "the first connection", func() bool { return opened() == 1 })
			from := obs.Load()
			waitFor(t, "20 events", func() bool { return obs.Load() >= from+20 })
			p.cut()
			cutAt := obs.Load()
			waitFor(t, "50 events while cut off", func() bool { return obs.Load() >= cutAt+50 })
			p.restore()
			waitFor(t, "the reconnect", func() bool { return opened() == 2 })
			from = obs.Load()
			waitFor(t, "20 more events", func() bool { return obs.Load() >= from+20 })
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the driver did not stop")
			}
			s.checkAccounting(t)
			checkResume(t, s, tt.replay > 0)
		})
	}
}

// checkResume checks the client's records after one cut and one resumed
// reconnect.
func checkResume(t *testing.T, s *memSink, replay bool) {
	t.Helper()
	if len(s.closes) != 2 || s.closes[0].ClosedBy != record.WSClosedAbnormal ||
		s.closes[1].ClosedBy != record.WSClosedByClient {
		t.Fatalf("closes %+v, want the cut (abnormal), then the driver's stop", s.closes)
	}
	var resumed *record.WSAttempt
	for i, a := range s.attempts {
		if a.Class == record.ClassOK && a.Attempt > 1 {
			resumed = &s.attempts[i]
		}
	}
	c := s.clients[0]
	if resumed == nil || resumed.After == nil || *resumed.After != s.closes[0].LastSeq-3 {
		t.Fatalf("resumed attempt %+v, want after = last delivered seq - 3", resumed)
	}
	if replay {
		if c.Unknown != 0 || c.Gaps != 0 || c.DupRejected != 3 || c.DupAccepted != 0 || c.Replayed < 50 {
			t.Errorf("client %+v: want nothing unknown, the overlap of 3 rejected, >= 50 replayed", c)
		}
		return
	}
	if c.Unknown < 50 || c.Unknown != c.Skipped || c.Gaps != 1 || c.Replayed != 0 || c.DupRejected != 0 {
		t.Errorf("client %+v: want one gap of >= 50 unknown events, nothing replayed", c)
	}
}
