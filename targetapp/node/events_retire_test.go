package node_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
)

// rawPeer is a WebSocket client written by hand that completes the upgrade
// and then never answers anything: it ignores the close frame.
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
	_ = c.SetDeadline(time.Now().Add(20 * time.Second)) // every read below is bounded
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

// next reads one server frame: its opcode and payload.
func (p *rawPeer) next() (op byte, payload []byte, err error) {
	hdr := make([]byte, 2)
	if _, err := io.ReadFull(p.br, hdr); err != nil {
		return 0, nil, err
	}
	n := int64(hdr[1] & 0x7f)
	switch n {
	case 126:
		b := make([]byte, 2)
		if _, err := io.ReadFull(p.br, b); err != nil {
			return 0, nil, err
		}
		n = int64(binary.BigEndian.Uint16(b))
	case 127:
		b := make([]byte, 8)
		if _, err := io.ReadFull(p.br, b); err != nil {
			return 0, nil, err
		}
		n = int64(binary.BigEndian.Uint64(b))
	}
	payload = make([]byte, n)
	_, err = io.ReadFull(p.br, payload)
	return hdr[0] & 0x0f, payload, err
}

// readUntilEnd reads until the connection ends: the close frame's code (0
// if none came), when the connection ended, and the error that ended it.
func (p *rawPeer) readUntilEnd() (closeCode int, ended time.Time, err error) {
	for {
		op, payload, err := p.next()
		if err != nil {
			return closeCode, time.Now(), err
		}
		if op == 0x8 && len(payload) >= 2 {
			closeCode = int(binary.BigEndian.Uint16(payload))
		}
	}
}

// streamEnd is how one client's stream ended: the close code (-1 without a
// close frame) and when.
type streamEnd struct {
	code int
	at   time.Time
}

// openStreams connects n /events clients; each has read one frame and
// reports its end on the returned channel.
func openStreams(t *testing.T, p *proc, n int) <-chan streamEnd {
	t.Helper()
	ends := make(chan streamEnd, n)
	for range n {
		c, _, err := p.dialEvents("")
		if err != nil {
			t.Fatal(err)
		}
		readFrame(t, c)
		go func() {
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					ends <- streamEnd{int(websocket.CloseStatus(err)), time.Now()}
					return
				}
			}
		}()
	}
	return ends
}

func (p *proc) find(name string) []record.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []record.Event
	for _, ev := range p.events {
		if ev.Event == name {
			out = append(out, ev)
		}
	}
	return out
}

// A real SIGTERM in full mode (W1, W3): upgrades refused with 503 draining
// from the first step, while the listener still accepts; at step 3 every
// stream gets 1001 inside CLOSE_SPREAD_MS (the app's own clock); a raw peer
// that ignores its close frame is terminated CLOSE_DEADLINE_MS later; then
// drained, exit 0.
func TestEventsFullRetirement(t *testing.T) {
	const (
		n        = 3
		prestop  = 800
		spread   = 400
		deadline = 300
	)
	p := startNode(t, true, "MODE=full", "EVENTS_PER_S=50", "DRAIN_MS=15000",
		fmt.Sprintf("PRESTOP_MS=%d", prestop), fmt.Sprintf("CLOSE_SPREAD_MS=%d", spread),
		fmt.Sprintf("CLOSE_DEADLINE_MS=%d", deadline))
	ends := openStreams(t, p, n)
	raw := dialRaw(t, p.addr())
	if op, _, err := raw.next(); err != nil || op != 0x1 {
		t.Fatalf("raw peer's first frame: op %d, %v; want a text frame", op, err)
	}
	type rawEnd struct {
		code int
		err  error
	}
	rawDone := make(chan rawEnd, 1)
	go func() {
		code, _, err := raw.readUntilEnd()
		rawDone <- rawEnd{code, err}
	}()

	sent := time.Now()
	p.signal(syscall.SIGTERM)
	p.waitEvent(record.EventReadyFalse, 2*time.Second)
	_, resp, err := p.dialEvents("")
	refused(t, "upgrade while draining", resp, err, record.RefusalDraining)
	if len(p.find(record.EventListenerClosed)) > 0 {
		t.Fatal("the upgrade ran after listener_closed; test inconclusive")
	}
	if code, _ := p.wait(15 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	for range n {
		select {
		case e := <-ends:
			if e.code != 1001 {
				t.Errorf("stream ended with code %d, want 1001", e.code)
			}
			if d := e.at.Sub(sent); d < prestop*time.Millisecond || d > (prestop+spread)*time.Millisecond+3*time.Second {
				t.Errorf("stream closed %v after the signal, want within [PRESTOP_MS, PRESTOP_MS + spread + slack]", d)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a stream outlived the process")
		}
	}
	r := <-rawDone
	if r.code != 1001 || r.err == nil || isTimeout(r.err) {
		t.Errorf("raw peer: close frame %d, end %v; want 1001, then the connection closed by the server", r.code, r.err)
	}

	closing := p.find(record.EventWSClosing)
	if len(closing) != 1 || *closing[0].Conns != n+1 || *closing[0].Ms < prestop ||
		closing[0].Msg != fmt.Sprintf("close_spread_ms=%d close_deadline_ms=%d", spread, deadline) {
		t.Fatalf("ws_closing %+v, want one with conns=%d, ms >= %d and the settings", closing, n+1, prestop)
	}
	sentAt := map[int64]float64{}
	for _, e := range p.find(record.EventWSCloseSent) {
		sentAt[*e.Conn] = *e.Ms
		if off := *e.Ms - *closing[0].Ms; off < 0 || off > spread+500 {
			t.Errorf("ws_close_sent conn=%d %.1f ms after ws_closing, want inside the %d ms spread (+500 ms timer slack)", *e.Conn, off, spread)
		}
		t.Logf("conn %d: close frame %.1f ms after ws_closing", *e.Conn, *e.Ms-*closing[0].Ms)
	}
	if len(sentAt) != n+1 {
		t.Errorf("ws_close_sent for %d streams, want %d", len(sentAt), n+1)
	}
	term := p.find(record.EventWSTerminated)
	if len(term) != 1 || *term[0].Conn != n+1 || term[0].Msg != fmt.Sprintf("no close frame within close_deadline_ms=%d", deadline) {
		t.Fatalf("ws_terminated %+v, want one for the raw peer (conn %d)", term, n+1)
	}
	if gap := *term[0].Ms - sentAt[n+1]; gap < deadline {
		t.Errorf("raw peer terminated %.1f ms after its close frame, before the %d ms deadline", gap, deadline)
	} else {
		t.Logf("raw peer terminated %.1f ms after its close frame (deadline %d ms)", gap, deadline)
	}
	names := p.names()
	if i, j := slices.Index(names, record.EventListenerClosed), slices.Index(names, record.EventWSClosing); i < 0 || j < i {
		t.Errorf("events %v: want ws_closing after listener_closed", names)
	}
	if len(p.find(record.EventDrained)) != 1 || len(p.find(record.EventWSAbandoned)) != 0 {
		t.Errorf("events %v, want drained and no ws_abandoned", names)
	}
}

// The DRAIN_MS deadline before step 3: the open streams are abandoned
// (ws_abandoned with their count, before exit 1), none got a close frame.
func TestEventsFullDeadlineAbandons(t *testing.T) {
	p := startNode(t, true, "MODE=full", "EVENTS_PER_S=50", "PRESTOP_MS=5000", "DRAIN_MS=300")
	ends := openStreams(t, p, 2)
	p.signal(syscall.SIGTERM)
	if code, _ := p.wait(5 * time.Second); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	ab := p.find(record.EventWSAbandoned)
	if len(ab) != 1 || ab[0].Conns == nil || *ab[0].Conns != 2 {
		t.Errorf("ws_abandoned %+v, want one with conns=2", ab)
	}
	want := []string{record.EventUp, record.EventSignal, record.EventReadyFalse, record.EventDeadline,
		record.EventWSAbandoned, record.EventExit}
	if got := p.names(); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	for range 2 {
		select {
		case e := <-ends:
			if e.code != -1 {
				t.Errorf("stream ended with close code %d, want none (1006)", e.code)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a stream outlived the process")
		}
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// Close mode (W2, measured): server.close() does not touch upgraded
// sockets and its callback waits for them, because net.Server still counts
// them. The process keeps running and the streams keep delivering (new
// connections are refused: the listener is closed) until the clients go;
// then close returns, exit 0, nothing abandoned. The Go target instead
// exits at once and its clients see 1006.
func TestEventsCloseModeKeepsStreams(t *testing.T) {
	const hold = 2 * time.Second
	p := startNode(t, true, "MODE=close", "EVENTS_PER_S=50")
	var conns []*websocket.Conn
	for range 2 {
		c, _, err := p.dialEvents("")
		if err != nil {
			t.Fatal(err)
		}
		readFrame(t, c)
		conns = append(conns, c)
	}
	p.signal(syscall.SIGTERM)
	p.waitEvent(record.EventListenerClosed, 2*time.Second)
	time.Sleep(hold)
	select {
	case <-p.done:
		t.Fatalf("exited with streams open; events %v", p.names())
	default:
	}
	for i, c := range conns {
		before := readFrame(t, c)
		if after := readFrame(t, c); after.Seq != before.Seq+1 {
			t.Errorf("stream %d: frame %d after %d, %v after SIGTERM: want it still delivering", i, after.Seq, before.Seq, hold)
		}
	}
	if _, _, err := p.dialEvents(""); err == nil {
		t.Error("a new stream opened after server.close()")
	}
	if got := p.find(record.EventShutdownReturned); len(got) != 0 {
		t.Fatalf("close returned with streams open: %+v", got)
	}
	t0 := time.Now()
	for _, c := range conns {
		if err := c.Close(websocket.StatusNormalClosure, ""); err != nil {
			t.Errorf("client close: %v", err)
		}
	}
	if code, _ := p.wait(5 * time.Second); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	ret := p.find(record.EventShutdownReturned)
	if len(ret) != 1 || len(p.find(record.EventWSAbandoned)) != 0 || len(p.find(record.EventWSCloseSent)) != 0 {
		t.Errorf("events %v, want shutdown_returned once, no close frame sent, nothing abandoned", p.names())
	} else {
		t.Logf("running %v with 2 streams open after SIGTERM; close returned %.0f ms after the signal, exit %v after the clients closed",
			hold, *ret[0].Ms, time.Since(t0).Round(time.Millisecond))
	}
}

// None mode: no handler; SIGTERM kills the process and its streams end
// without a close frame (1006).
func TestEventsNoneMode(t *testing.T) {
	p := startNode(t, true, "MODE=none", "EVENTS_PER_S=50")
	ends := openStreams(t, p, 2)
	p.signal(syscall.SIGTERM)
	if code, sig := p.wait(5 * time.Second); code != -1 || sig != syscall.SIGTERM {
		t.Errorf("exit %d signal %v, want killed by SIGTERM", code, sig)
	}
	for range 2 {
		select {
		case e := <-ends:
			if e.code != -1 {
				t.Errorf("stream ended with close code %d, want no close frame (1006)", e.code)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a stream outlived the process")
		}
	}
	if got := p.names(); !slices.Equal(got, []string{record.EventUp}) {
		t.Errorf("events %v, want only up", got)
	}
}

// W2 underneath the close mode, in plain Node: closeAllConnections() and
// close() leave an upgraded socket alone, and close's callback waits for
// it. The client keeps receiving 10 more messages after both calls; the
// callback comes only once the client has closed its stream.
func TestNodeCloseAllLeavesUpgraded(t *testing.T) {
	got := runJS(t, `const http = require('http');
const { WebSocketServer, WebSocket } = require('./events.js').loadWS();
const server = http.createServer((req, res) => res.end());
const wss = new WebSocketServer({ noServer: true });
server.on('upgrade', (req, sock, head) => wss.handleUpgrade(req, sock, head, (ws) => {
  const t = setInterval(() => ws.send('x'), 5);
  ws.on('close', () => clearInterval(t));
}));
const out = [];
const fail = setTimeout(() => { console.log('timeout: ' + out.join(' ')); process.exit(1); }, 10000);
server.listen(0, '127.0.0.1', () => {
  const c = new WebSocket('ws://127.0.0.1:' + server.address().port + '/');
  let after = -1;
  c.on('open', () => {
    server.close(() => { out.push('close-callback'); clearTimeout(fail); process.stdout.write(out.join(' ')); });
    server.closeAllConnections();
    out.push('closed-all');
    after = 0;
  });
  c.on('message', () => {
    if (after < 0 || ++after !== 10) return;
    out.push('10-more-messages', 'client-closes');
    c.close(1000);
  });
});`)
	if want := "closed-all 10-more-messages client-closes close-callback"; got != want {
		t.Errorf("sequence %q, want %q", got, want)
	}
}

// UPGRADES_WHILE_DRAINING=accept is the server that only fails readiness
// (W1's contrast): during the pre-stop wait an upgrade is admitted; a bad
// value is refused at start.
func TestEventsAdmitWhileDraining(t *testing.T) {
	p := startNode(t, true, "MODE=full", "PRESTOP_MS=3000", "DRAIN_MS=10000", "UPGRADES_WHILE_DRAINING=accept")
	p.signal(syscall.SIGTERM)
	p.waitEvent(record.EventReadyFalse, 2*time.Second)
	c, _, err := p.dialEvents("")
	if err != nil {
		t.Fatalf("upgrade while draining: %v, want admitted", err)
	}
	if len(p.find(record.EventListenerClosed)) > 0 {
		t.Fatal("the upgrade ran after listener_closed; test inconclusive")
	}
	_ = c.CloseNow()

	bad := startNode(t, false, "UPGRADES_WHILE_DRAINING=yes")
	if code, _ := bad.wait(10 * time.Second); code != 2 || !strings.Contains(bad.stderr.String(), `UPGRADES_WHILE_DRAINING="yes"`) {
		t.Fatalf("UPGRADES_WHILE_DRAINING=yes: exit %d, stderr %q; want 2 naming it", code, bad.stderr.String())
	}
}
