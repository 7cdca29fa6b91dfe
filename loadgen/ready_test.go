package loadgen

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// WaitReady polls until the third GET answers 200; each poll is a new
// connection.
func TestWaitReady(t *testing.T) {
	var calls, conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" || calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	if err := WaitReady(context.Background(), srv.Listener.Addr().String(), "", "/readyz", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 || conns.Load() != 3 {
		t.Errorf("%d polls on %d connections, want 3 and 3", calls.Load(), conns.Load())
	}
}

// A target that never gets ready fails after the timeout with the last
// error.
func TestWaitReadyTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	t0 := time.Now()
	err := WaitReady(context.Background(), srv.Listener.Addr().String(), "", "/readyz", 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "503") || time.Since(t0) > 3*time.Second {
		t.Fatalf("err %v after %v, want a 503 error after ~200ms", err, time.Since(t0))
	}
}
