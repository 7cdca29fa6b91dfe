package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// WaitReady polls GET path on target every 20 ms, each poll on a new
// connection with Connection: close, until one answers 200 or timeout
// passes (or ctx ends); the error then wraps the last complete poll's
// error. host is the Host header (default: target). Polls are not load:
// they are not recorded. Both the load agent and the probe use it.
func WaitReady(ctx context.Context, target, host, path string, timeout time.Duration) error {
	if host == "" {
		host = target
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		err := readyOnce(ctx, target, host, path)
		if err == nil {
			return nil
		}
		dl, _ := ctx.Deadline() // the dial may fail on it before ctx is marked done
		if last == nil || (ctx.Err() == nil && time.Now().Before(dl)) {
			// A poll cut short by the deadline says less than the one
			// before it (e.g. "503"): keep that one.
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %v: %w", timeout, last)
		case <-tick.C:
		}
	}
}

// readyOnce performs one GET and returns nil on a 200.
func readyOnce(ctx context.Context, target, host, path string) error {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nUser-Agent: shutdownlab-probe\r\n\r\n", path, host); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return nil
}
