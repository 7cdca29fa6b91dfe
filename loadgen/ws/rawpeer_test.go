package ws

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/targetapp"
)

// rawRun drives one raw peer against url for at most d.
func rawRun(t *testing.T, url string, d time.Duration) *memSink {
	t.Helper()
	return run(t, url, 5, d, func(c *Config) { c.RawPeers = 1 })
}

// A server that sends 1001 and terminates the connection after a
// deadline: the raw peer sees the close frame, never answers it, and
// reads on until the server ends the TCP connection.
func TestRawPeerIgnoresClose(t *testing.T) {
	var terminated atomic.Int64
	closeErr := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hr := &hijackKeeper{ResponseWriter: w}
		c := sendEvents(t, hr, r, 1, 2, 3)
		if c == nil {
			return
		}
		done := make(chan error, 1)
		go func() { done <- c.Close(websocket.StatusGoingAway, "going away") }()
		select {
		case err := <-done: // the peer answered
			closeErr <- err
		case <-time.After(300 * time.Millisecond): // the close deadline: terminate, as the Go target does
			terminated.Store(time.Now().UnixNano())
			_ = hr.conn.Close()
			closeErr <- errors.New("terminated at the deadline")
		}
	}))
	defer srv.Close()
	s := rawRun(t, wsURL(srv), 20*time.Second)
	if len(s.attempts) != 1 || len(s.closes) != 1 {
		t.Fatalf("%d attempts, %d closes; want one connection, made once", len(s.attempts), len(s.closes))
	}
	if a := s.attempts[0]; a.Class != record.ClassOK || a.Status != 101 || a.Cause != "start" || a.Conn == 0 {
		t.Errorf("attempt %+v, want ok 101 cause start", a)
	}
	if err := <-closeErr; err == nil {
		t.Error("the raw peer answered the close frame")
	}
	c, term := s.closes[0], terminated.Load()
	if c.Code != 1001 || c.Reason != "going away" || c.ClosedBy != record.WSClosedByServer || c.Error != "" ||
		c.Received != 3 || c.LastSeq != 3 {
		t.Errorf("close %+v, want 1001 going away by the server after 3 events", c)
	}
	if term == 0 || c.CloseFrame == 0 || !(c.Opened <= c.CloseFrame && c.CloseFrame <= term && term <= c.Closed) {
		t.Errorf("opened %d, close frame %d, terminated %d, closed %d: want them in this order",
			c.Opened, c.CloseFrame, term, c.Closed)
	}
	t.Logf("closed - close_frame = %v (the server's deadline 300ms)", time.Duration(c.Closed-c.CloseFrame))
	if cl := s.clients[0]; cl.Attempts != 1 || cl.Opened != 1 || cl.Closes != 1 || cl.Received != 3 || cl.Exhausted {
		t.Errorf("client %+v, want one attempt, opened and closed, 3 events", cl)
	}
}

// hijackKeeper keeps the connection websocket.Accept hijacks, so a test
// server can end it without the library's closing handshake.
type hijackKeeper struct {
	http.ResponseWriter
	conn net.Conn
}

func (h *hijackKeeper) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	h.conn = c
	return c, rw, err
}

// A refused upgrade is one attempt, recorded as the other clients' are,
// and the raw peer does not try again.
func TestRawPeerRefused503(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Header().Set(record.RefusalHeader, record.RefusalDraining)
		w.Header().Set(record.UpstreamHeader, "replica-1:8080")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	s := rawRun(t, wsURL(srv), 20*time.Second)
	if len(s.attempts) != 1 || len(s.closes) != 0 {
		t.Fatalf("%d attempts, %d closes; want one failed attempt", len(s.attempts), len(s.closes))
	}
	if a := s.attempts[0]; a.Class != record.ClassHTTPError || a.Status != 503 || a.Refusal != record.RefusalDraining ||
		a.Upstream != "replica-1:8080" || a.Conn != 0 || a.Error == "" {
		t.Errorf("attempt %+v, want http_error 503 draining via replica-1 with its error", a)
	}
	if cl := s.clients[0]; cl.Attempts != 1 || cl.Failed != 1 || cl.Exhausted {
		t.Errorf("client %+v, want one failed attempt, not exhausted (a raw peer connects once)", cl)
	}
}

func TestRawPeerRefusedConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := rawRun(t, "ws://"+addr+"/events", 20*time.Second)
	if len(s.attempts) != 1 || s.attempts[0].Class != record.ClassRefused || s.attempts[0].Status != 0 {
		t.Errorf("attempts %+v, want one refused", s.attempts)
	}
}

// The run ends while the raw peer's connection is open: it closes its
// socket and says so; with a close frame already in, the close is still
// the server's, with the driver's stop as the error.
func TestRawPeerRunEnds(t *testing.T) {
	for _, tt := range []struct {
		name      string
		sendClose bool
		code      int
		by, err   string
	}{
		{"no close frame", false, record.WSCodeAbnormal, record.WSClosedAbnormal, "driver stopping: closed the socket"},
		{"close frame, never terminated", true, 1001, record.WSClosedByServer, "driver stopping: the server had not ended"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hold := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				c := sendEvents(t, w, r, 1)
				if c == nil {
					return
				}
				if tt.sendClose {
					go func() { _ = c.Close(websocket.StatusGoingAway, "going away") }()
				}
				<-hold
				_ = c.CloseNow()
			}))
			defer srv.Close()
			defer close(hold)
			s := rawRun(t, wsURL(srv), 500*time.Millisecond)
			if len(s.closes) != 1 {
				t.Fatalf("%d closes, want 1", len(s.closes))
			}
			c := s.closes[0]
			if c.Code != tt.code || c.ClosedBy != tt.by || !strings.HasPrefix(c.Error, tt.err) ||
				(c.CloseFrame != 0) != tt.sendClose || c.Received != 1 {
				t.Errorf("close %+v, want %d by %s, error %q, close frame %v, 1 event", c, tt.code, tt.by, tt.err, tt.sendClose)
			}
		})
	}
}

// startRetiringTarget serves the Go target's /events (full mode, 100
// events per second, close deadline d, no spread) on 127.0.0.1; its log
// goes to out.
func startRetiringTarget(t *testing.T, d time.Duration, out io.Writer) (*targetapp.App, string) {
	t.Helper()
	cfg := targetapp.DefaultConfig()
	cfg.Host, cfg.Port, cfg.DataDir = "127.0.0.1", 0, t.TempDir()
	cfg.EventsPerS, cfg.CloseDeadline, cfg.Sweep = 100, d, 10*time.Millisecond
	a, err := targetapp.New(cfg, targetapp.NewLogger(out, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Serve(ln) }()
	return a, ln.Addr().String()
}

// syncBuf is a bytes.Buffer safe for the target's logger.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// W3 against the Go target: full mode sends every stream 1001; the
// library client answers and is gone, the raw peer is terminated at the
// close deadline (ws_terminated), and both are recorded as the server's
// 1001, the raw peer's with when the frame came.
func TestRawPeerAgainstGoTarget(t *testing.T) {
	const deadline = 200 * time.Millisecond
	out := &syncBuf{}
	app, addr := startRetiringTarget(t, deadline, out)
	s := &memSink{}
	closes := func() int { s.mu.Lock(); defer s.mu.Unlock(); return len(s.closes) }
	cfg := Config{URL: "ws://" + addr + "/events", Clients: 2, RawPeers: 1, MaxAttempts: 1, DedupeSize: 64,
		Duration: 30 * time.Second, Policy: Policy{Kind: Immediate}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, s) }()
	waitFor(t, "both streams", func() bool { return app.WSConns() == 2 })
	time.Sleep(100 * time.Millisecond) // some events
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	if r := app.Drain(dctx, time.Now()); !r.Drained {
		t.Fatalf("drain %+v, want drained once the raw peer was terminated", r)
	}
	waitFor(t, "both closes", func() bool { return closes() == 2 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s.checkAccounting(t)
	for _, c := range s.closes {
		if c.Code != 1001 || c.ClosedBy != record.WSClosedByServer || c.Error != "" || c.Received == 0 {
			t.Errorf("close %+v, want the server's 1001 after some events", c)
		}
		if raw := c.Client == 0; raw != (c.CloseFrame != 0) || raw && c.Closed <= c.CloseFrame {
			t.Errorf("close %+v: want close_frame_ns (before closed_ns) exactly on the raw peer's", c)
		}
		if c.Client == 0 {
			t.Logf("raw peer: closed - close_frame = %v (CLOSE_DEADLINE_MS %v)", time.Duration(c.Closed-c.CloseFrame), deadline)
		}
	}
	if n := strings.Count(out.String(), `"`+record.EventWSTerminated+`"`); n != 1 {
		t.Errorf("%d ws_terminated events, want 1 (the raw peer):\n%s", n, out.String())
	}
}

// The raw peer's end, decided from the close frame's code, the read error
// and whether the driver was stopping.
func TestRawEnd(t *testing.T) {
	stopped := os.ErrDeadlineExceeded
	for _, tt := range []struct {
		name     string
		code     int
		readErr  error
		stopping bool
		wantCode int
		by, err  string
	}{
		{"frame, then the server's EOF", 1001, io.EOF, false, 1001, record.WSClosedByServer, ""},
		{"frame, then a reset", 1001, errors.New("connection reset by peer"), false, 1001, record.WSClosedByServer, ""},
		{"frame, then the driver stops", 1001, stopped, true, 1001, record.WSClosedByServer, "driver stopping"},
		{"frame, then a protocol error", 1001, errProtocol, false, 1001, record.WSClosedByServer, "websocket protocol"},
		{"no frame, EOF", 0, io.EOF, false, 1006, record.WSClosedAbnormal, "EOF"},
		{"no frame, the driver stops", 0, stopped, true, 1006, record.WSClosedAbnormal, "driver stopping"},
		{"no frame, a read timeout not ours", 0, stopped, false, 1006, record.WSClosedAbnormal, "i/o timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, by, msg := rawEnd(tt.code, "r", tt.readErr, tt.stopping)
			if code != tt.wantCode || by != tt.by || !strings.HasPrefix(msg, tt.err) || (tt.err == "") != (msg == "") {
				t.Errorf("rawEnd = %d %s %q, want %d %s %q", code, by, msg, tt.wantCode, tt.by, tt.err)
			}
		})
	}
}
