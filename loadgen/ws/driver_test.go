package ws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
)

// memSink keeps every record.
type memSink struct {
	mu       sync.Mutex
	attempts []record.WSAttempt
	closes   []record.WSClose
	clients  []record.WSClient
}

func (s *memSink) Attempt(a record.WSAttempt) {
	s.mu.Lock()
	s.attempts = append(s.attempts, a)
	s.mu.Unlock()
}
func (s *memSink) Close(c record.WSClose) { s.mu.Lock(); s.closes = append(s.closes, c); s.mu.Unlock() }
func (s *memSink) Client(c record.WSClient) {
	s.mu.Lock()
	s.clients = append(s.clients, c)
	s.mu.Unlock()
}

// checkAccounting applies record's rule to what the driver wrote.
func (s *memSink) checkAccounting(t *testing.T) {
	t.Helper()
	var ta record.WSTally
	for _, a := range s.attempts {
		ta.AddAttempt(a)
	}
	for _, c := range s.closes {
		ta.AddClose(c)
	}
	for _, c := range s.clients {
		ta.AddClient(c)
	}
	for _, err := range record.CheckWSAccounting(&ta) {
		t.Error(err)
	}
}

// sendEvents accepts the upgrade and sends event frames seqs.
func sendEvents(t *testing.T, w http.ResponseWriter, r *http.Request, seqs ...int64) *websocket.Conn {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		t.Errorf("accept: %v", err)
		return nil
	}
	for _, s := range seqs {
		b, _ := json.Marshal(record.WSFrame{Type: record.WSFrameEvent, ID: "ev-" + strconv.FormatInt(s, 10), Seq: s})
		if err := c.Write(r.Context(), websocket.MessageText, b); err != nil {
			t.Errorf("write: %v", err)
		}
	}
	return c
}

// run drives one client against url with MaxAttempts attempts, for at
// most d.
func run(t *testing.T, url string, attempts int, d time.Duration, mod func(*Config)) *memSink {
	t.Helper()
	return runSink(t, &memSink{}, url, attempts, d, mod)
}

// runSink is run with the sink s.
func runSink(t *testing.T, s *memSink, url string, attempts int, d time.Duration, mod func(*Config)) *memSink {
	t.Helper()
	cfg := Config{URL: url, Clients: 1, Policy: Policy{Kind: Immediate}, MaxAttempts: attempts, Duration: d,
		DedupeSize: 16, CloseTimeout: time.Second}
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Run(ctx, cfg, s); err != nil {
		t.Fatal(err)
	}
	s.checkAccounting(t)
	return s
}

func wsURL(srv *httptest.Server) string {
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/events"
}

func TestHandshakeRefused503(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Header().Set(record.RefusalHeader, record.RefusalDraining)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	s := run(t, wsURL(srv), 2, 20*time.Second, nil)
	if len(s.attempts) != 2 || len(s.closes) != 0 {
		t.Fatalf("%d attempts, %d closes; want 2 failed attempts", len(s.attempts), len(s.closes))
	}
	for _, a := range s.attempts {
		if a.Class != record.ClassHTTPError || a.Status != 503 || a.Refusal != record.RefusalDraining || a.Conn != 0 {
			t.Errorf("attempt %+v, want http_error 503 draining", a)
		}
	}
	if c := s.clients[0]; c.Attempts != 2 || c.Failed != 2 || !c.Exhausted {
		t.Errorf("client %+v, want 2 failed attempts, exhausted", c)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	s := run(t, "ws://"+addr+"/events", 3, 20*time.Second, nil)
	if len(s.attempts) != 3 {
		t.Fatalf("%d attempts, want 3", len(s.attempts))
	}
	for _, a := range s.attempts {
		if a.Class != record.ClassRefused || a.Status != 0 || a.Error == "" {
			t.Errorf("attempt %+v, want refused with its error", a)
		}
	}
}

func TestAbnormalClose1006(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := sendEvents(t, w, r, 1, 2); c != nil {
			_ = c.CloseNow() // the socket ends without a close frame
		}
	}))
	defer srv.Close()
	s := run(t, wsURL(srv), 1, 20*time.Second, nil)
	if len(s.closes) != 1 {
		t.Fatalf("%d closes, want 1", len(s.closes))
	}
	c := s.closes[0]
	if c.Code != record.WSCodeAbnormal || c.ClosedBy != record.WSClosedAbnormal || c.Error == "" || c.Received != 2 {
		t.Errorf("close %+v, want 1006 abnormal with its error after 2 events", c)
	}
	if c.Opened == 0 || c.Closed < c.Opened || c.Conn == 0 || c.Conn != s.attempts[0].Conn {
		t.Errorf("close %+v: want the times and the conn of its attempt %+v", c, s.attempts[0])
	}
}

func TestServerClose1001(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := sendEvents(t, w, r, 1, 2, 3); c != nil {
			_ = c.Close(websocket.StatusGoingAway, "going away")
		}
	}))
	defer srv.Close()
	s := run(t, wsURL(srv), 2, 20*time.Second, nil)
	if len(s.attempts) != 2 || len(s.closes) != 2 {
		t.Fatalf("%d attempts, %d closes; want 2 opened and closed", len(s.attempts), len(s.closes))
	}
	for _, c := range s.closes {
		if c.Code != 1001 || c.Reason != "going away" || c.ClosedBy != record.WSClosedByServer {
			t.Errorf("close %+v, want 1001 by the server", c)
		}
	}
	// Without resume the second connection sees 1..3 again: the cache
	// rejects them.
	if cl := s.clients[0]; cl.Received != 6 || cl.DupRejected != 3 || cl.Opened != 2 || cl.Closes != 2 {
		t.Errorf("client %+v, want 6 received, 3 rejected", cl)
	}
	if a := s.attempts[1]; a.Cause != "close" || a.Retry != 0 {
		t.Errorf("second attempt %+v: want scheduled by close, retry reset by the open", a)
	}
}

func TestDriverStopClosesWith1000(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := sendEvents(t, w, r, 1); c != nil {
			_, _, _ = c.Read(context.Background()) // until the client's close
		}
	}))
	defer srv.Close()
	s := run(t, wsURL(srv), 5, 300*time.Millisecond, nil)
	if len(s.attempts) != 1 || len(s.closes) != 1 {
		t.Fatalf("%d attempts, %d closes; want 1 connection", len(s.attempts), len(s.closes))
	}
	if c := s.closes[0]; c.Code != 1000 || c.ClosedBy != record.WSClosedByClient {
		t.Errorf("close %+v, want 1000 by the client", c)
	}
	if s.clients[0].Exhausted {
		t.Error("client exhausted: it stopped because the run ended")
	}
}

func TestResumeSendsCursor(t *testing.T) {
	var mu sync.Mutex
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		n := len(queries)
		mu.Unlock()
		if n == 1 {
			if c := sendEvents(t, w, r, 1, 2, 3, 4, 5); c != nil {
				_ = c.Close(websocket.StatusGoingAway, "")
			}
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	s := run(t, wsURL(srv), 2, 20*time.Second, func(c *Config) { c.Resume, c.ResumeOverlap = true, 2 })
	mu.Lock()
	defer mu.Unlock()
	if len(queries) != 2 || queries[0] != "" || queries[1] != "after=3" {
		t.Fatalf("queries %q, want none then after=3 (5 minus overlap 2)", queries)
	}
	if a := s.attempts[1]; a.After == nil || *a.After != 3 {
		t.Errorf("second attempt %+v, want after 3 recorded", a)
	}
}

// The double-schedule bug: every failed attempt schedules two more; the
// budget bounds them, and each one is a record.
func TestDoubleSchedule(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	s := run(t, wsURL(srv), 7, 20*time.Second, func(c *Config) { c.Policy.DoubleSchedule = true })
	causes := map[string]int{}
	for _, a := range s.attempts {
		causes[a.Cause]++
	}
	if len(s.attempts) != 7 || causes["start"] != 1 || causes["error"] == 0 || causes["close"] == 0 {
		t.Fatalf("%d attempts by cause %v, want 7: start, then error and close", len(s.attempts), causes)
	}
	single := run(t, wsURL(srv), 7, 20*time.Second, nil)
	for _, a := range single.attempts[1:] {
		if a.Cause != "error" {
			t.Errorf("attempt %+v without the bug: want one schedule, by error", a)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	good := Config{URL: "ws://127.0.0.1:1/events", Clients: 1, Policy: Policy{Kind: Immediate}, MaxAttempts: 1,
		Duration: time.Second}
	for _, tt := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"valid", func(*Config) {}, ""},
		{"http scheme", func(c *Config) { c.URL = "http://127.0.0.1:1/events" }, "must be ws://"},
		{"query with resume", func(c *Config) { c.URL += "?after=1"; c.Resume = true }, "no query with resume"},
		{"no clients", func(c *Config) { c.Clients = 0 }, "clients 0"},
		{"no attempts", func(c *Config) { c.MaxAttempts = 0 }, "max attempts 0"},
		{"unbounded", func(c *Config) { c.Duration = 0 }, "duration 0s"},
		{"bad policy", func(c *Config) { c.Policy.Kind = "" }, `policy ""`},
		{"ramp past the duration", func(c *Config) { c.Ramp = 2 * time.Second }, "ramp 2s"},
		{"more raw peers than clients", func(c *Config) { c.RawPeers = 2 }, "raw peers 2"},
		{"negative raw peers", func(c *Config) { c.RawPeers = -1 }, "raw peers -1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.mod(&c)
			err := c.Validate()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// OnStarted fires once, after every client's first attempt is recorded,
// while the connections are still open; the ramp delays client i's first
// attempt by i·ramp/clients; each record names the upstream a proxy
// reported.
func TestStartRampAndUpstream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(record.UpstreamHeader, "replica-0:8080")
		if c := sendEvents(t, w, r, 1); c != nil {
			_, _, _ = c.Read(context.Background()) // until the client's close
		}
	}))
	defer srv.Close()
	const n = 4
	var calls, seen, closedAtStart int
	s := &memSink{}
	runSink(t, s, wsURL(srv), 1, 600*time.Millisecond, func(c *Config) {
		c.Clients, c.Ramp = n, 200*time.Millisecond
		c.OnStarted = func() {
			s.mu.Lock()
			calls, seen, closedAtStart = calls+1, len(s.attempts), len(s.closes)
			s.mu.Unlock()
		}
	})
	if calls != 1 || seen != n || closedAtStart != 0 {
		t.Errorf("OnStarted called %d times, with %d attempts and %d closes recorded; want once, %d, 0",
			calls, seen, closedAtStart, n)
	}
	for _, a := range s.attempts {
		if want := float64(200 * a.Client / n); a.Cause != "start" || a.DelayMs != want || a.Upstream != "replica-0:8080" {
			t.Errorf("attempt %+v: want cause start, delay %v ms, the upstream", a, want)
		}
	}
}

// A server that never answers the driver's close frame: the connection
// is closed after CloseTimeout and recorded as abnormal, not as a clean
// close by the client.
func TestStopWithoutAnswer(t *testing.T) {
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := sendEvents(t, w, r, 1); c != nil {
			<-hold // never reads: the close frame is never answered
			_ = c.CloseNow()
		}
	}))
	defer srv.Close()
	defer close(hold)
	s := run(t, wsURL(srv), 1, 300*time.Millisecond, func(c *Config) { c.CloseTimeout = 200 * time.Millisecond })
	if len(s.closes) != 1 {
		t.Fatalf("%d closes, want 1", len(s.closes))
	}
	if c := s.closes[0]; c.Code != record.WSCodeAbnormal || c.ClosedBy != record.WSClosedAbnormal ||
		!strings.Contains(c.Error, "no answer to the close frame") {
		t.Errorf("close %+v, want 1006 abnormal: no answer to the close frame", c)
	}
}

func TestClosedBy(t *testing.T) {
	closeErr := func(code websocket.StatusCode) error {
		return fmt.Errorf("read: %w", websocket.CloseError{Code: code, Reason: "r"})
	}
	eof := errors.New("EOF")
	for _, tt := range []struct {
		name     string
		readErr  error
		closing  bool
		closeErr error
		code     int
		by       string
	}{
		{"server's close frame", closeErr(1001), false, nil, 1001, record.WSClosedByServer},
		{"echo of the driver's 1000", closeErr(1000), true, nil, 1000, record.WSClosedByClient},
		{"server frame crossing the driver's close", closeErr(1001), true, nil, 1001, record.WSClosedByServer},
		{"Close read the echo itself", eof, true, nil, 1000, record.WSClosedByClient},
		{"Close read another code", eof, true, closeErr(1012), 1012, record.WSClosedByServer},
		{"Close got no answer", eof, true, errors.New("no answer"), 1006, record.WSClosedAbnormal},
		{"socket ended, not stopping", eof, false, nil, 1006, record.WSClosedAbnormal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, by := closedBy(tt.readErr, tt.closing, tt.closeErr)
			if code != tt.code || by != tt.by {
				t.Errorf("closedBy = %d %s, want %d %s", code, by, tt.code, tt.by)
			}
		})
	}
}
