package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// waitUntilReady polls GET path on target every 20 ms, each probe on a new
// connection with Connection: close, until one answers 200 or timeout
// passes. Probes are not load: they are not recorded.
func waitUntilReady(ctx context.Context, target, host, path string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if last = probe(ctx, target, host, path); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %v: %w", timeout, last)
		case <-tick.C:
		}
	}
}

// probe performs one GET and returns nil on a 200.
func probe(ctx context.Context, target, host, path string) error {
	d := net.Dialer{Timeout: time.Second}
	c, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nUser-Agent: shutdownlab-loadagent\r\n\r\n", path, host); err != nil {
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
