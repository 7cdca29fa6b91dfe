package probe

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// The server closes the idle socket 300 ms after the response: eof at ~300.
func TestIdleServerCloses(t *testing.T) {
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) {
		respond(c, "keep-alive", "Keep-Alive: timeout=5\r\n")
		sleepOrDone(300*time.Millisecond, done)
	})
	r, starts, _ := runProbe(t, context.Background(), Config{Kind: KindIdle, Target: addr, MaxWait: 5 * time.Second})
	if r.Closed != ClosedEOF || r.SocketClosedNs == 0 || r.Error != "" {
		t.Fatalf("closed %q at %d (err %q), want eof", r.Closed, r.SocketClosedNs, r.Error)
	}
	if r.Status != 200 || r.ResponseClass != record.ClassOK || r.ConnHeader != "keep-alive" || r.KeepAliveHeader != "timeout=5" || r.BodyBytes != 2 {
		t.Errorf("response %d %s conn %q keep-alive %q body %d", r.Status, r.ResponseClass, r.ConnHeader, r.KeepAliveHeader, r.BodyBytes)
	}
	if r.Path != "/slow?ms=0" || r.UnexpectedBytes != 0 || r.LocalAddr == "" || r.RemoteAddr != addr {
		t.Errorf("path %q unexpected %d local %q remote %q", r.Path, r.UnexpectedBytes, r.LocalAddr, r.RemoteAddr)
	}
	if len(starts) != 1 || starts[0] != r.ResponseEndNs || r.LoadStartNs != r.ResponseEndNs {
		t.Errorf("idle load start %v / %d, want once at response end %d", starts, r.LoadStartNs, r.ResponseEndNs)
	}
	within(t, "close after response", ms(r.SocketClosedNs, r.ResponseEndNs), 200, 2000)
}

// The server resets the idle socket (SO_LINGER 0): reset.
func TestIdleServerResets(t *testing.T) {
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) {
		respond(c, "keep-alive", "")
		sleepOrDone(100*time.Millisecond, done)
		c.SetLinger(0)
	})
	r, _, _ := runProbe(t, context.Background(), Config{Kind: KindIdle, Target: addr, MaxWait: 5 * time.Second})
	if r.Closed != ClosedReset || r.SocketClosedNs == 0 || !strings.Contains(r.Error, "reset") {
		t.Fatalf("closed %q at %d (err %q), want reset", r.Closed, r.SocketClosedNs, r.Error)
	}
	within(t, "reset after response", ms(r.SocketClosedNs, r.ResponseEndNs), 50, 2000)
}

// The server never closes: timeout at max-wait, no close time.
func TestIdleNeverCloses(t *testing.T) {
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) {
		respond(c, "keep-alive", "")
		<-done
	})
	r, _, _ := runProbe(t, context.Background(), Config{Kind: KindIdle, Target: addr, MaxWait: 300 * time.Millisecond})
	if r.Closed != ClosedTimeout || r.SocketClosedNs != 0 || r.MaxWaitMs != 300 {
		t.Fatalf("closed %q at %d max-wait %v, want timeout, never closed, 300", r.Closed, r.SocketClosedNs, r.MaxWaitMs)
	}
	within(t, "wait", ms(r.EndNs, r.ResponseEndNs), 290, 2000)
	if m := r.Analyze(r.LoadStartNs + int64(100*time.Millisecond)); m.ClosedBy != "never" || m.SocketClosedAfterSignalMs != nil {
		t.Errorf("r.Analyze = %+v, want never with null close", m)
	}
}

// Inflight: the answer comes after 300 ms saying keep-alive, the close 500 ms
// later.
func TestInflightKeepAliveThenClose(t *testing.T) {
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) {
		sleepOrDone(300*time.Millisecond, done)
		respond(c, "keep-alive", "Keep-Alive: timeout=5\r\n")
		sleepOrDone(500*time.Millisecond, done)
	})
	r, starts, calledAt := runProbe(t, context.Background(), Config{Kind: KindInflight, Target: addr, Path: "/slow?ms=300", MaxWait: 5 * time.Second})
	if r.Closed != ClosedEOF || r.ConnHeader != "keep-alive" || r.KeepAliveHeader != "timeout=5" || r.Status != 200 {
		t.Fatalf("closed %q conn %q keep-alive %q status %d", r.Closed, r.ConnHeader, r.KeepAliveHeader, r.Status)
	}
	if len(starts) != 1 || starts[0] != r.WrittenNs || r.LoadStartNs != r.WrittenNs {
		t.Fatalf("inflight load start %v / %d, want once at written %d", starts, r.LoadStartNs, r.WrittenNs)
	}
	if calledAt[0] >= r.FirstByteNs {
		t.Errorf("onStart ran at %d, after the first byte %d: not while in flight", calledAt[0], r.FirstByteNs)
	}
	within(t, "response after write", ms(r.ResponseEndNs, r.WrittenNs), 250, 2000)
	within(t, "close after write", ms(r.SocketClosedNs, r.WrittenNs), 700, 3000)
	within(t, "close after response", ms(r.SocketClosedNs, r.ResponseEndNs), 400, 2000)
}

// Inflight: the answer says Connection: close and the server closes at once.
func TestInflightConnectionClose(t *testing.T) {
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) {
		sleepOrDone(100*time.Millisecond, done)
		respond(c, "close", "")
	})
	r, _, _ := runProbe(t, context.Background(), Config{Kind: KindInflight, Target: addr, MaxWait: 5 * time.Second})
	if r.Closed != ClosedEOF || r.ConnHeader != "close" || r.Path != "/slow?ms=4000" {
		t.Fatalf("closed %q conn %q path %q", r.Closed, r.ConnHeader, r.Path)
	}
	within(t, "close after response", ms(r.SocketClosedNs, r.ResponseEndNs), 0, 500)
}

// Inflight: the server dies mid-request with an RST: no response, reset.
func TestInflightServerResetsMidRequest(t *testing.T) {
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) {
		sleepOrDone(100*time.Millisecond, done)
		c.SetLinger(0)
	})
	r, starts, _ := runProbe(t, context.Background(), Config{Kind: KindInflight, Target: addr, MaxWait: 5 * time.Second})
	if r.ResponseClass != record.ClassReset || r.Closed != ClosedReset || r.ResponseEndNs != 0 || r.Status != 0 || len(starts) != 1 {
		t.Fatalf("class %s closed %q response end %d status %d starts %v", r.ResponseClass, r.Closed, r.ResponseEndNs, r.Status, starts)
	}
	within(t, "reset after write", ms(r.SocketClosedNs, r.WrittenNs), 50, 2000)
}

// An EOF-delimited body ends with the socket: the close is the body's end.
func TestBodyDelimitedByClose(t *testing.T) {
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) {
		fmt.Fprint(c, "HTTP/1.1 200 OK\r\n\r\nhello")
	})
	r, starts, _ := runProbe(t, context.Background(), Config{Kind: KindIdle, Target: addr, MaxWait: 5 * time.Second})
	if r.Closed != ClosedEOF || r.BodyBytes != 5 || r.SocketClosedNs == 0 || r.SocketClosedNs > r.ResponseEndNs || len(starts) != 1 {
		t.Fatalf("closed %q at %d, body %d, response end %d, starts %v", r.Closed, r.SocketClosedNs, r.BodyBytes, r.ResponseEndNs, starts)
	}
}

// Bytes on the idle socket are counted and kept, then the close is seen.
func TestUnexpectedBytes(t *testing.T) {
	const extra = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n"
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) {
		respond(c, "keep-alive", "")
		sleepOrDone(50*time.Millisecond, done)
		fmt.Fprint(c, extra)
	})
	r, _, _ := runProbe(t, context.Background(), Config{Kind: KindIdle, Target: addr, MaxWait: 5 * time.Second})
	if r.Closed != ClosedEOF || r.UnexpectedBytes != len(extra) || r.UnexpectedData != extra {
		t.Fatalf("closed %q, unexpected %d %q", r.Closed, r.UnexpectedBytes, r.UnexpectedData)
	}
}

// Cancelling the context stops the idle wait at once: stopped, not closed.
func TestStopped(t *testing.T) {
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) {
		respond(c, "keep-alive", "")
		<-done
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t0 := time.Now()
	r, err := Run(ctx, Config{Kind: KindIdle, Target: addr, MaxWait: 20 * time.Second}, func(int64) {
		time.AfterFunc(200*time.Millisecond, cancel)
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Closed != ClosedStopped || r.SocketClosedNs != 0 || time.Since(t0) > 5*time.Second {
		t.Fatalf("closed %q at %d after %v, want stopped promptly", r.Closed, r.SocketClosedNs, time.Since(t0))
	}
}

// A response that never comes ends at -timeout as timeout.
func TestResponseTimeout(t *testing.T) {
	addr := serve(t, func(c *net.TCPConn, done <-chan struct{}) { <-done })
	r, _, _ := runProbe(t, context.Background(), Config{Kind: KindInflight, Target: addr, Timeout: 200 * time.Millisecond})
	if r.ResponseClass != record.ClassTimeout || r.Closed != ClosedTimeout || r.SocketClosedNs != 0 {
		t.Fatalf("class %s closed %q at %d", r.ResponseClass, r.Closed, r.SocketClosedNs)
	}
	within(t, "timeout", ms(r.EndNs, r.ConnectedNs), 190, 2000)
}

// Nothing listens: refused, no start, no close observed.
func TestDialRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r, starts, _ := runProbe(t, context.Background(), Config{Kind: KindInflight, Target: addr})
	if r.ResponseClass != record.ClassRefused || r.Closed != "" || r.ConnectedNs != 0 || len(starts) != 0 || r.Error == "" {
		t.Fatalf("class %s closed %q connected %d starts %v err %q", r.ResponseClass, r.Closed, r.ConnectedNs, starts, r.Error)
	}
}

// A real net/http server with IdleTimeout 300 ms closes the idle socket at
// about 300 ms.
func TestRealServerIdleTimeout(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok":true}`))
	}))
	srv.Config.IdleTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()
	r, _, _ := runProbe(t, context.Background(), Config{Kind: KindIdle, Target: srv.Listener.Addr().String(), MaxWait: 5 * time.Second})
	if r.Closed != ClosedEOF || r.Status != 200 || r.BodyBytes != 11 {
		t.Fatalf("closed %q status %d body %d err %q", r.Closed, r.Status, r.BodyBytes, r.Error)
	}
	within(t, "idle close", ms(r.SocketClosedNs, r.ResponseEndNs), 150, 3000)
}

// Invalid configurations are refused naming the setting.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		cfg   Config
		field string
	}{
		{Config{Target: "127.0.0.1:1"}, "kind"},
		{Config{Kind: "busy", Target: "127.0.0.1:1"}, "kind"},
		{Config{Kind: KindIdle}, "target"},
		{Config{Kind: KindIdle, Target: "nohostport"}, "target"},
		{Config{Kind: KindIdle, Target: "127.0.0.1:1", Path: "slow"}, "path"},
		{Config{Kind: KindIdle, Target: "127.0.0.1:1", Path: "/a b"}, "path"},
		{Config{Kind: KindIdle, Target: "127.0.0.1:1", Host: "a\r\nX: y"}, "host"},
		{Config{Kind: KindIdle, Target: "127.0.0.1:1", ID: "a\nb"}, "id"},
		{Config{Kind: KindIdle, Target: "127.0.0.1:1", MaxWait: -time.Second}, "max-wait"},
		{Config{Kind: KindIdle, Target: "127.0.0.1:1", Timeout: -1}, "timeout"},
		{Config{Kind: KindIdle, Target: "127.0.0.1:1", DialTimeout: -1}, "dial-timeout"},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), tt.cfg, nil)
		ce, ok := err.(*ConfigError)
		if !ok || ce.Field != tt.field {
			t.Errorf("Run(%+v) error %v, want a ConfigError on %s", tt.cfg, err, tt.field)
		}
	}
}
