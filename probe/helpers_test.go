package probe

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// serve starts a loopback TCP server that reads one request per accepted
// connection and hands the connection to handle; the connection is closed
// when handle returns. done is closed when the test ends, so a handle that
// must hold the socket open waits on it. Cleanup waits for every handler.
func serve(t *testing.T, handle func(c *net.TCPConn, done <-chan struct{})) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		close(done)
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
					return
				}
				handle(c.(*net.TCPConn), done)
			}()
		}
	}()
	return ln.Addr().String()
}

// respond writes a 200 with body "ok" and the given Connection header.
func respond(c net.Conn, connHeader string, extra string) {
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: %s\r\n%s\r\nok", connHeader, extra)
}

// sleepOrDone waits d or until the test ends.
func sleepOrDone(d time.Duration, done <-chan struct{}) {
	select {
	case <-time.After(d):
	case <-done:
	}
}

// runProbe runs one probe bounded by 10 s and returns it with the load
// starts onStart reported and when it reported them.
func runProbe(t *testing.T, ctx context.Context, cfg Config) (Result, []int64, []int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var starts, calledAt []int64
	r, err := Run(ctx, cfg, func(ns int64) {
		starts = append(starts, ns)
		calledAt = append(calledAt, now())
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if r.Type != "probe" || r.Kind != cfg.Kind || r.Target != cfg.Target {
		t.Errorf("result header %+v does not match config %+v", r, cfg)
	}
	checkOrder(t, r)
	return r, starts, calledAt
}

// checkOrder asserts the result's timestamps never go backwards.
func checkOrder(t *testing.T, r Result) {
	t.Helper()
	prev, prevName := int64(0), ""
	for _, p := range []struct {
		name string
		v    int64
	}{{"start", r.StartNs}, {"connected", r.ConnectedNs}, {"written", r.WrittenNs},
		{"first_byte", r.FirstByteNs}, {"response_end", r.ResponseEndNs},
		{"socket_closed", r.SocketClosedNs}, {"end", r.EndNs}} {
		if p.v == 0 {
			continue
		}
		if p.v < prev {
			t.Errorf("%s (%d) before %s (%d)", p.name, p.v, prevName, prev)
		}
		prev, prevName = p.v, p.name
	}
	if r.StartNs == 0 || r.EndNs == 0 {
		t.Errorf("start %d / end %d not set", r.StartNs, r.EndNs)
	}
}

// ms is (a - b) in milliseconds.
func ms(a, b int64) float64 { return float64(a-b) / 1e6 }

// within fails unless lo <= v <= hi.
func within(t *testing.T, what string, v, lo, hi float64) {
	t.Helper()
	if v < lo || v > hi {
		t.Errorf("%s = %.1f ms, want within [%v, %v]", what, v, lo, hi)
	}
}
