package loadgen

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

const okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// The server answers one request per connection and then closes the idle
// keep-alive connection. The client's next request on it must be eof on a
// reused connection, and must not be retried: the server sees only the
// requests that got an answer.
func TestIdleKeepAliveCloseIsEOFNotRetried(t *testing.T) {
	var served atomic.Int64
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		if _, err := readReq(br); err != nil {
			return
		}
		served.Add(1)
		c.Write([]byte(okResponse))
		// return: close while idle (keep-alive was not refused)
	})
	_, reqs := run(t, Config{Target: addr, Clients: 1, MaxRequests: 4, Think: 100 * time.Millisecond, Timeout: 5 * time.Second})
	want := []record.Class{record.ClassOK, record.ClassEOF, record.ClassOK, record.ClassEOF}
	if got := classes(reqs); !slices.Equal(got, want) {
		t.Fatalf("classes %v, want %v", got, want)
	}
	for i, wantReused := range []bool{false, true, false, true} {
		if reqs[i].Reused != wantReused {
			t.Errorf("request %d reused=%v, want %v", i, reqs[i].Reused, wantReused)
		}
	}
	if reqs[1].Conn != reqs[0].Conn || reqs[2].Conn == reqs[1].Conn {
		t.Errorf("conn ids %d %d %d: want the eof on the first conn, then a new conn", reqs[0].Conn, reqs[1].Conn, reqs[2].Conn)
	}
	if reqs[1].Written == 0 {
		t.Errorf("eof request was not written: %+v", reqs[1])
	}
	if n := served.Load(); n != 2 {
		t.Errorf("server saw %d requests, want exactly 2 (no retries)", n)
	}
}

// A response cut by an RST (SO_LINGER 0 then close) is reset.
func TestResetMidResponse(t *testing.T) {
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader, _ int) {
		if _, err := readReq(br); err != nil {
			return
		}
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"))
		time.Sleep(50 * time.Millisecond)
		c.(*net.TCPConn).SetLinger(0)
	})
	sum, reqs := run(t, Config{Target: addr, Clients: 1, MaxRequests: 3, Timeout: 5 * time.Second})
	if sum.ByClass[record.ClassReset] != 3 {
		t.Fatalf("by class %v, want reset=3; records %+v", sum.ByClass, reqs)
	}
	for i, r := range reqs {
		if r.Reused || r.Conn != uint64(i+1) {
			t.Errorf("request %d: conn %d reused=%v, want a fresh conn %d", i, r.Conn, r.Reused, i+1)
		}
	}
}

// A closed listener means refused: nothing was written, no connection.
func TestListenerClosedIsRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	sum, reqs := run(t, Config{Target: addr, Clients: 2, MaxRequests: 5, Timeout: 2 * time.Second})
	if sum.ByClass[record.ClassRefused] != 5 || sum.Started != 5 || sum.StoppedBy != StoppedByCount {
		t.Fatalf("summary %+v, want refused=5 stopped by count", sum)
	}
	for _, r := range reqs {
		if r.Conn != 0 || r.Written != 0 || r.Error == "" {
			t.Errorf("refused record %+v: want conn 0, written 0 and an error", r)
		}
	}
}

// 502 and 503 are http_error with their status.
func TestHTTPErrorKeepsStatus(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 {
			w.WriteHeader(http.StatusBadGateway)
		} else {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	sum, reqs := run(t, Config{Target: srv.Listener.Addr().String(), Clients: 1, MaxRequests: 4})
	if sum.ByClass[record.ClassHTTPError] != 4 {
		t.Fatalf("by class %v, want http_error=4", sum.ByClass)
	}
	var got []int
	for _, r := range reqs {
		got = append(got, r.Status)
	}
	if want := []int{502, 503, 502, 503}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if reqs[3].Conn != reqs[0].Conn || !reqs[3].Reused {
		t.Errorf("an http_error must not drop a keep-alive conn: %+v", reqs)
	}
}

// A response slower than the per-request timeout is timeout, and the conn
// is dropped.
func TestSlowResponseIsTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	start := time.Now()
	sum, reqs := run(t, Config{Target: srv.Listener.Addr().String(), Clients: 1, MaxRequests: 2, Timeout: 150 * time.Millisecond})
	if sum.ByClass[record.ClassTimeout] != 2 {
		t.Fatalf("by class %v, want timeout=2", sum.ByClass)
	}
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Errorf("two 150ms timeouts took %v", el)
	}
	if reqs[0].Conn == reqs[1].Conn {
		t.Errorf("conn reused after a timeout")
	}
	if lat := time.Duration(reqs[0].LatencyNs()); lat < 140*time.Millisecond || lat > 600*time.Millisecond {
		t.Errorf("timeout latency %v, want about 150ms", lat)
	}
}

// Connection: close is honoured: the next request dials a new connection and
// nothing fails.
func TestConnectionCloseHonoured(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Connection", "close")
	}))
	defer srv.Close()
	sum, reqs := run(t, Config{Target: srv.Listener.Addr().String(), Clients: 1, MaxRequests: 3})
	if sum.ByClass[record.ClassOK] != 3 {
		t.Fatalf("by class %v, want ok=3", sum.ByClass)
	}
	for i, r := range reqs {
		if r.Conn != uint64(i+1) || r.Reused || r.ConnHeader != "close" || r.Connected == 0 {
			t.Errorf("request %d: conn %d reused=%v conn_header=%q connected=%d; want conn %d, fresh, close", i, r.Conn, r.Reused, r.ConnHeader, r.Connected, i+1)
		}
	}
	if n.Load() != 3 {
		t.Errorf("server saw %d requests, want 3", n.Load())
	}
}

// Keep-alive: one client, one connection, reused from the second request.
func TestKeepAliveReuse(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	_, reqs := run(t, Config{Target: srv.Listener.Addr().String(), Clients: 1, MaxRequests: 5})
	for i, r := range reqs {
		if r.Class != record.ClassOK || r.Conn != 1 || r.Reused != (i > 0) {
			t.Errorf("request %d: %+v", i, r)
		}
		if r.Written < r.Start || r.FirstByte < r.Written || r.End < r.FirstByte {
			t.Errorf("request %d timestamps out of order: %+v", i, r)
		}
	}
	if conns.Load() != 1 {
		t.Errorf("server saw %d connections, want 1", conns.Load())
	}
}

// FailPause paces a closed-loop client after a failure: against a closed
// port, 2 clients with a 100 ms pause over 500 ms make about 10 attempts,
// not thousands, and every attempt is still recorded as refused.
func TestFailPausePacesRefusals(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	sum, reqs := run(t, Config{Target: addr, Clients: 2, Duration: 500 * time.Millisecond, FailPause: 100 * time.Millisecond, MaxRequests: 10000})
	n := sum.ByClass[record.ClassRefused]
	if n != sum.Started || n != len(reqs) {
		t.Fatalf("summary %+v, records %d: every attempt must be a refused record", sum, len(reqs))
	}
	// 2 clients x (500 ms / 100 ms) = 10 attempts, +2 for the first ones; 30 leaves room for a slow machine.
	if n < 4 || n > 30 {
		t.Errorf("refused = %d attempts in 500 ms with a 100 ms pause; want about 10", n)
	}
}
