package targetapp

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
)

// streamEnd is how one /events client's connection ended: the close code
// (-1 without a close frame) and when.
type streamEnd struct {
	code int
	at   time.Time
}

// openStreams connects n /events clients to c; each reports its end on
// the returned channel.
func openStreams(t *testing.T, c *child, n int) <-chan streamEnd {
	t.Helper()
	ends := make(chan streamEnd, n)
	addr := strings.TrimPrefix(c.base, "http://")
	for range n {
		conn, _, err := dialEvents(t, addr, "")
		if err != nil {
			t.Fatal(err)
		}
		readFrame(t, conn) // streaming
		go func() {
			for {
				if _, _, err := conn.Read(context.Background()); err != nil {
					ends <- streamEnd{int(websocket.CloseStatus(err)), time.Now()}
					return
				}
			}
		}()
	}
	return ends
}

// A real SIGTERM in full mode: upgrades refused from the first step (while
// the listener still accepts), every stream closed with 1001 inside the
// spread window, then drained and exit 0.
func TestProcessEventsFull(t *testing.T) {
	t.Parallel()
	const n = 3
	c := startChild(t, "MODE=full", "PRESTOP_MS=1000", "CLOSE_SPREAD_MS=300", "EVENTS_PER_S=50", "DRAIN_MS=10000")
	ends := openStreams(t, c, n)
	sent := c.signal(t, syscall.SIGTERM)
	c.waitEvent(t, record.EventReadyFalse, 2*time.Second)
	_, resp, err := dialEvents(t, strings.TrimPrefix(c.base, "http://"), "")
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable ||
		resp.Header.Get(record.RefusalHeader) != record.RefusalDraining {
		t.Errorf("upgrade while draining: %v %v, want 503 draining", resp, err)
	}
	if slices.Contains(names(c.snapshot()), record.EventListenerClosed) {
		t.Fatal("the upgrade ran after listener_closed; test inconclusive")
	}
	if st := c.waitExit(t, 10*time.Second); st.ExitCode() != 0 {
		t.Errorf("exit %v, want 0", st)
	}
	bound := 1000*time.Millisecond + 300*time.Millisecond + 3*time.Second // pre-stop + spread + slack
	for range n {
		e := <-ends
		if e.code != 1001 {
			t.Errorf("stream ended with code %d, want 1001", e.code)
		}
		if d := e.at.Sub(sent); d < 0 || d > bound {
			t.Errorf("stream closed %v after the signal, want within [0, %v]", d, bound)
		}
	}
	evs := c.snapshot()
	if cl := find(evs, record.EventWSClosing); len(cl) != 1 || *cl[0].Conns != n {
		t.Errorf("ws_closing %+v, want conns=%d", cl, n)
	}
	if got := len(find(evs, record.EventWSCloseSent)); got != n {
		t.Errorf("%d ws_close_sent, want %d", got, n)
	}
	if len(find(evs, record.EventDrained)) != 1 || exitEvent(t, evs) != 0 {
		t.Errorf("events %v, want drained and exit 0", names(evs))
	}
}

// A real SIGTERM in close mode: Go's Shutdown returns without the hijacked
// streams, the process exits, and every client sees its connection end
// without a close frame (1006).
func TestProcessEventsClose(t *testing.T) {
	t.Parallel()
	const n = 2
	c := startChild(t, "MODE=close", "EVENTS_PER_S=50")
	ends := openStreams(t, c, n)
	c.signal(t, syscall.SIGTERM)
	if st := c.waitExit(t, 10*time.Second); st.ExitCode() != 0 {
		t.Errorf("exit %v, want 0", st)
	}
	for range n {
		select {
		case e := <-ends:
			if e.code != -1 {
				t.Errorf("stream ended with close code %d, want no close frame (1006)", e.code)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a stream outlived the process")
		}
	}
	evs := c.snapshot()
	if ab := find(evs, record.EventWSAbandoned); len(ab) != 1 || *ab[0].Conns != n {
		t.Errorf("ws_abandoned %+v, want conns=%d", ab, n)
	}
	if find(evs, record.EventWSCloseSent) != nil {
		t.Errorf("close mode sent close frames: %v", names(evs))
	}
}
