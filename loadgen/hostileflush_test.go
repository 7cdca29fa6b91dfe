package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// firstWrite signals its first write and keeps what was written.
type firstWrite struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first chan struct{}
	once  sync.Once
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.once.Do(func() { close(w.first) })
	return w.buf.Write(p)
}

// Through a buffering encoder, the start line goes out while the first
// attempt is still trickling, not at the end: the runner times its action
// from it.
func TestRunHostileFlushesStart(t *testing.T) {
	addr := rawServer(t, func(c net.Conn, br *bufio.Reader, _ int) { io.Copy(io.Discard, br) })
	w := &firstWrite{first: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := RunHostile(ctx, HostileLoad{MaxAttempts: 1, Duration: time.Hour, Drain: time.Second,
			Request: HostileRequest{Kind: record.HostileSlowHeaders, Target: addr, Rate: 1}}, NewJSONEncoder(w))
		done <- err
	}()
	select {
	case <-w.first:
	case err := <-done:
		t.Fatalf("RunHostile ended (%v) before anything was written", err)
	case <-time.After(10 * time.Second):
		t.Fatal("nothing written 10 s into a one-hour hostile run")
	}
	w.mu.Lock()
	got := w.buf.String()
	w.mu.Unlock()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var l record.Line
	if err := l.Decode(bytes.TrimSpace([]byte(got))); err != nil || l.Type != record.TypeStart {
		t.Errorf("first output %q: want the start line alone", got)
	}
}
