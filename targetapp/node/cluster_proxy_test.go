package node_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// dialBase opens a TCP connection to base (http://host:port).
func dialBase(base string) (net.Conn, error) {
	return net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 5*time.Second)
}

// backend is a loopback HTTP/1.1 server standing in for the proxy's
// BACKEND: it answers a request whose body arrived in full with 200 and
// closes, and counts the connections it accepted and those the other side
// closed before the body was complete.
type backend struct {
	ln       net.Listener
	mu       sync.Mutex
	accepted int
	dropped  int
	wg       sync.WaitGroup
}

func startBackend(t *testing.T) *backend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &backend{ln: ln}
	var conns sync.Map
	t.Cleanup(func() {
		ln.Close()
		conns.Range(func(k, _ any) bool { k.(net.Conn).Close(); return true })
		b.wg.Wait()
	})
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Store(c, true)
			b.mu.Lock()
			b.accepted++
			b.mu.Unlock()
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer c.Close()
				b.serve(c)
			}()
		}
	}()
	return b
}

func (b *backend) serve(c net.Conn) {
	c.SetDeadline(time.Now().Add(30 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err == nil {
		_, err = io.Copy(io.Discard, req.Body)
	}
	if err != nil {
		b.mu.Lock()
		b.dropped++
		b.mu.Unlock()
		return
	}
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\n{\"ok\":true}\n")
}

func (b *backend) counts() (accepted, dropped int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.accepted, b.dropped
}

// waitBackend waits until cond holds for the backend's counts.
func (b *backend) waitBackend(t *testing.T, what string, cond func(accepted, dropped int) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		a, d := b.counts()
		if cond(a, d) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend: %s not reached within 5 s (accepted %d, dropped %d)", what, a, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// abortProxied sends a POST /proxy whose body stops after 10 of 1000
// bytes, waits until the backend has the proxied connection, and drops the
// client connection.
func abortProxied(t *testing.T, p *proc, b *backend, want int) {
	t.Helper()
	c, err := dialBase(p.base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "POST /proxy?ms=0 HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n0123456789"); err != nil {
		t.Fatal(err)
	}
	b.waitBackend(t, fmt.Sprintf("%d connections accepted", want), func(a, _ int) bool { return a >= want })
}

// TestClusterProxyLeak is C4: a client that drops mid-request leaves one
// open backend socket per aborted request in the worker with pipe(), and
// none with pipeline(). The worker's fds are counted from /proc/PID/fd.
// The leaked sockets also hold the worker's clean exit: on SIGTERM the pipe
// worker needs the teardown timeout (exit 1), the pipeline one exits 0.
func TestClusterProxyLeak(t *testing.T) {
	const n = 5
	for _, impl := range []string{"pipe", "pipeline"} {
		t.Run(impl, func(t *testing.T) {
			b := startBackend(t)
			p := startCluster(t, true, "SUPERVISOR=gated", "CLUSTER_WORKERS=1", "PROXY_IMPL="+impl,
				"BACKEND="+b.ln.Addr().String(), "TEARDOWN_MS=1500")
			worker := p.workerPID()
			// A complete proxied request first: whatever the worker opens
			// lazily is open before the count.
			req, _ := http.NewRequest("POST", p.base+"/proxy?ms=0", strings.NewReader("warm"))
			req.Close = true
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || !strings.Contains(string(body), `"ok":true`) {
				t.Fatalf("proxied request: %d %q", res.StatusCode, body)
			}
			// Settled: the warm-up's client and backend sockets are closed.
			time.Sleep(200 * time.Millisecond)
			before := fdCount(t, worker)
			for i := 1; i <= n; i++ {
				abortProxied(t, p, b, 1+i)
			}
			if impl == "pipe" {
				got, ok := waitFds(t, worker, before+n, 5*time.Second)
				if !ok {
					t.Errorf("pipe: worker fds %d after %d aborted requests, want >= %d (one backend socket each)", got, n, before+n)
				}
				if _, dropped := b.counts(); dropped != 0 {
					t.Errorf("pipe: backend saw %d proxied connections closed, want 0 (half-open)", dropped)
				}
				t.Logf("pipe: worker fds %d -> %d after %d aborted requests", before, got, n)
				shutdown(t, p, 1)
				return
			}
			b.waitBackend(t, fmt.Sprintf("%d proxied connections closed", n), func(_, d int) bool { return d >= n })
			deadline := time.Now().Add(5 * time.Second)
			got := fdCount(t, worker)
			for got > before && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				got = fdCount(t, worker)
			}
			if got > before {
				t.Errorf("pipeline: worker fds %d after %d aborted requests, want <= %d", got, n, before)
			}
			t.Logf("pipeline: worker fds %d -> %d after %d aborted requests", before, got, n)
			shutdown(t, p, 0)
		})
	}
}

// shutdown sends SIGTERM and checks the exit code: 0 (the pool drained) or
// 1 with forced_exit (the teardown timeout).
func shutdown(t *testing.T, p *proc, want int) {
	t.Helper()
	client.CloseIdleConnections()
	p.signal(syscall.SIGTERM)
	if code, _ := p.wait(10 * time.Second); code != want {
		t.Errorf("exit %d after SIGTERM, want %d; events %v", code, want, p.names())
	}
	if _, forced := p.event(record.EventForcedExit); forced != (want == 1) {
		t.Errorf("forced_exit logged: %v, want %v", forced, want == 1)
	}
}
