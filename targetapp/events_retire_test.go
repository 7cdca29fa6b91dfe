package targetapp

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// rawPeer is a WebSocket client written by hand that completes the
// upgrade and then never answers anything: it ignores the close frame.
type rawPeer struct {
	conn net.Conn
	br   *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawPeer {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second)) // every read below is bounded
	fmt.Fprintf(c, "GET /events HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", addr)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade answered %d", resp.StatusCode)
	}
	return &rawPeer{conn: c, br: br}
}

// readUntilEnd reads server frames until the connection ends; it returns
// the close frame's code (0 if none came) and when the connection ended.
func (p *rawPeer) readUntilEnd() (closeCode int, ended time.Time, err error) {
	hdr := make([]byte, 2)
	for {
		if _, err := io.ReadFull(p.br, hdr); err != nil {
			return closeCode, time.Now(), err
		}
		n := int64(hdr[1] & 0x7f)
		switch n {
		case 126:
			b := make([]byte, 2)
			if _, err := io.ReadFull(p.br, b); err != nil {
				return closeCode, time.Now(), err
			}
			n = int64(binary.BigEndian.Uint16(b))
		case 127:
			b := make([]byte, 8)
			if _, err := io.ReadFull(p.br, b); err != nil {
				return closeCode, time.Now(), err
			}
			n = int64(binary.BigEndian.Uint64(b))
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(p.br, payload); err != nil {
			return closeCode, time.Now(), err
		}
		if hdr[0]&0x0f == 0x8 && len(payload) >= 2 {
			closeCode = int(binary.BigEndian.Uint16(payload))
		}
	}
}

func TestEventsTerminatesPeerIgnoringClose(t *testing.T) {
	cfg := testConfig(t)
	cfg.EventsPerS = 50
	cfg.CloseDeadline = 200 * time.Millisecond
	a, out := newTestApp(t, cfg)
	p := dialRaw(t, serve(t, a))
	eventually(t, 5*time.Second, "the stream registered", func() bool { return a.WSConns() == 1 })
	type end struct {
		code int
		at   time.Time
		err  error
	}
	ended := make(chan end, 1)
	go func() {
		code, at, err := p.readUntilEnd()
		ended <- end{code, at, err}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := a.Drain(ctx, time.Now())
	if !r.Drained {
		t.Fatalf("drain %+v, want drained once the peer was terminated", r)
	}
	e := <-ended
	if e.code != 1001 {
		t.Errorf("peer saw close code %d, want 1001 before the end", e.code)
	}
	if e.err == nil || isTimeoutErr(e.err) {
		t.Errorf("peer's connection ended with %v, want it closed by the server", e.err)
	}
	evs := out.events(t)
	sent, term := find(evs, record.EventWSCloseSent), find(evs, record.EventWSTerminated)
	if len(sent) != 1 || len(term) != 1 || term[0].Conn == nil || *term[0].Conn != *sent[0].Conn {
		t.Fatalf("ws_close_sent %+v, ws_terminated %+v: want one each, same conn", sent, term)
	}
	if gap := *term[0].Ms - *sent[0].Ms; gap < float64(cfg.CloseDeadline.Milliseconds()) {
		t.Errorf("terminated %.1f ms after the close frame, before the %v deadline", gap, cfg.CloseDeadline)
	}
}

func isTimeoutErr(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// Go's Shutdown does not know hijacked connections: close mode returns
// with the stream still open and still delivering (W2), and logs it as
// abandoned.
func TestEventsCloseModeLeavesStreams(t *testing.T) {
	cfg := testConfig(t)
	cfg.Mode = ModeClose
	cfg.EventsPerS = 200
	a, out := newTestApp(t, cfg)
	c, _, err := dialEvents(t, serve(t, a), "")
	if err != nil {
		t.Fatal(err)
	}
	before := readFrame(t, c)
	done := make(chan error, 1)
	go func() { done <- a.StockShutdown(time.Now()) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return with a stream open")
	}
	if after := readFrame(t, c); after.Seq <= before.Seq {
		t.Fatalf("frame %+v after Shutdown, want the stream going on", after)
	}
	ab := find(out.events(t), record.EventWSAbandoned)
	if len(ab) != 1 || ab[0].Conns == nil || *ab[0].Conns != 1 {
		t.Fatalf("ws_abandoned %+v, want one with conns=1", ab)
	}
}

// Retirement while the writer is busy (1000 events/s, several raw peers,
// every close frame at once) must still leave each peer its whole close
// deadline: a write failing because the closing handshake began is not a
// reason to cut the connection early. Seen before the fix on a real run:
// a raw peer cut 3 ms after its close frame, no ws_terminated logged.
func TestEventsBusyWriterKeepsCloseDeadline(t *testing.T) {
	const peers = 8
	cfg := testConfig(t)
	cfg.EventsPerS = 1000
	cfg.CloseDeadline = 300 * time.Millisecond
	a, out := newTestApp(t, cfg)
	addr := serve(t, a)
	type end struct {
		code int
		at   time.Time
	}
	ended := make(chan end, peers)
	for range peers {
		p := dialRaw(t, addr)
		go func() {
			code, at, _ := p.readUntilEnd()
			ended <- end{code, at}
		}()
	}
	eventually(t, 5*time.Second, "the streams registered", func() bool { return a.WSConns() == peers })
	time.Sleep(100 * time.Millisecond) // the writers are mid-batch
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if r := a.Drain(ctx, start); !r.Drained {
		t.Fatalf("drain %+v, want drained once the peers were terminated", r)
	}
	for range peers {
		e := <-ended
		if e.code != 1001 {
			t.Errorf("a peer saw close code %d, want 1001", e.code)
		}
		if d := e.at.Sub(start); d < cfg.CloseDeadline {
			t.Errorf("a peer's connection ended %v after retirement began, before its %v deadline", d, cfg.CloseDeadline)
		}
	}
	if term := find(out.events(t), record.EventWSTerminated); len(term) != peers {
		t.Errorf("%d ws_terminated events, want %d (every peer cut at its deadline)", len(term), peers)
	}
}
