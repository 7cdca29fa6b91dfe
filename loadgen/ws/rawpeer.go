package ws

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/shutdownlab/shutdownlab/loadgen"
	"github.com/shutdownlab/shutdownlab/record"
)

// A raw peer (Config.RawPeers) is the peer a close deadline exists for
// (W3): it opens the stream once with a hand-written handshake on a plain
// net.Conn, reads frames, and never writes one: no pong, no answer to the
// server's close frame. After the close frame it keeps reading until the
// server ends the TCP connection, or the run ends (then it closes its
// socket). Its records are the other clients': one ws_attempt, one
// ws_close when it opened (with close_frame_ns), one ws_client line.

// rawChain is a raw peer's life: its ramp delay, then its one attempt.
func (c *client) rawChain(ctx context.Context, delay time.Duration) {
	defer c.chains.Done()
	if !sleep(ctx, delay) {
		return // the run ended before the attempt: not made, not recorded
	}
	n, ok := c.take()
	if !ok {
		return
	}
	c.rawAttempt(ctx, n, delay)
}

// rawAttempt makes the raw peer's handshake, records it, and when it
// opened reads the connection until it ends and records its close.
func (c *client) rawAttempt(ctx context.Context, n int, delay time.Duration) {
	a := record.WSAttempt{Type: record.TypeWSAttempt, Client: c.id, Attempt: n, Cause: "start",
		DelayMs: float64(delay.Microseconds()) / 1000}
	a.Start = time.Now().UnixNano()
	conn, br, err := c.rawHandshake(ctx, &a)
	a.End = time.Now().UnixNano()
	if err == nil {
		a.Class, a.Conn = record.ClassOK, c.connIDs.Add(1)
	} else {
		a.Error = err.Error()
	}
	c.recordAttempt(a, n, err == nil)
	if err != nil {
		return
	}
	c.recordClose(c.rawServe(ctx, conn, br, a))
}

// rawHandshake dials the configured address and upgrades, bounded by the
// handshake timeout and ctx. It fills a's status, refusal, upstream and,
// on failure, class; it returns the open connection and its reader.
func (c *client) rawHandshake(ctx context.Context, a *record.WSAttempt) (net.Conn, *bufio.Reader, error) {
	u, err := url.Parse(c.cfg.URL) // validated by Config
	if err != nil {
		a.Class = record.ClassRefused
		return nil, nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, c.cfg.HandshakeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(hctx, "tcp", c.host())
	if err != nil {
		a.Class = loadgen.Classify(loadgen.StageDial, err, 0)
		if ctx.Err() != nil {
			a.Class, err = record.ClassTimeout, fmt.Errorf("driver stopping: %w", err)
		}
		return nil, nil, err
	}
	deadline, _ := hctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	key := c.wsKey()
	br := bufio.NewReader(conn)
	var resp *http.Response
	if _, err = conn.Write(upgradeRequest(u, key)); err == nil {
		resp, err = http.ReadResponse(br, nil)
	}
	if err == nil {
		a.Status, a.Upstream = resp.StatusCode, resp.Header.Get(record.UpstreamHeader)
		a.Refusal = resp.Header.Get(record.RefusalHeader)
		if err = checkUpgrade(resp, key); err != nil {
			a.Class = record.ClassHTTPError // as the library's Dial with a response
		}
	} else {
		a.Class = loadgen.Classify(loadgen.StageRead, err, 0)
		if ctx.Err() != nil {
			a.Class, err = record.ClassTimeout, fmt.Errorf("driver stopping: %w", err)
		}
	}
	if err != nil {
		_ = conn.Close()
		return nil, nil, err
	}
	return conn, br, nil
}

// wsKey is a Sec-WebSocket-Key from the client's seeded random source.
func (c *client) wsKey() string {
	var b [16]byte
	c.mu.Lock()
	for i := range b {
		b[i] = byte(c.rng.Uint32())
	}
	c.mu.Unlock()
	return base64.StdEncoding.EncodeToString(b[:])
}

// rawServe reads frames until the connection ends or ctx does (then it
// closes its socket), counting event frames, and returns the close
// record. It never writes.
func (c *client) rawServe(ctx context.Context, conn net.Conn, br *bufio.Reader, a record.WSAttempt) record.WSClose {
	defer conn.Close()
	w := record.WSClose{Type: record.TypeWSClose, Client: c.id, Attempt: a.Attempt, Conn: a.Conn, Opened: a.End}
	// The handshake's deadline gives way to ctx: reads fail at once when
	// it ends. Checking ctx after clearing the deadline closes the race
	// with the AfterFunc that sets it.
	_ = conn.SetDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { _ = conn.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	if ctx.Err() != nil {
		_ = conn.SetReadDeadline(time.Unix(1, 0))
	}
	code, reason := 0, ""
	var msgs messages
	var err error
	for {
		var f frame
		if f, err = readFrame(br, maxRawPayload); err != nil {
			break
		}
		if f.op == opClose {
			if w.CloseFrame == 0 {
				w.CloseFrame = time.Now().UnixNano()
				if code, reason, err = parseClose(f.payload); err != nil {
					code = 0 // malformed: recorded as no close frame
					break
				}
			}
			continue // never answered: read on until the server ends it
		}
		if f.op > opClose {
			continue // ping, pong: never answered either
		}
		op, msg, ok, ferr := msgs.add(f)
		if err = ferr; err != nil {
			break
		}
		if ok && op == opText {
			c.account(msg, &w.WSEventCounts)
		}
	}
	w.Closed = time.Now().UnixNano()
	c.mu.Lock()
	_, w.LastSeq, _ = c.track.delivered.bounds()
	c.mu.Unlock()
	w.Code, w.Reason, w.ClosedBy, w.Error = rawEnd(code, reason, err, ctx.Err() != nil)
	return w
}

// account delivers one text message if it is an event frame.
func (c *client) account(msg []byte, counts *record.WSEventCounts) {
	var f record.WSFrame
	if json.Unmarshal(msg, &f) != nil || f.Type != record.WSFrameEvent {
		return // not an event: nothing to account
	}
	c.mu.Lock()
	c.track.deliver(f, counts)
	c.mu.Unlock()
}

// rawEnd decides a raw peer's close from the close frame's code and
// reason (code 0 when none arrived), the error that ended its reads and
// whether the driver was stopping. With a close frame it is the server's
// close, with an error only when something other than the server ended
// the connection (the driver stopping, a protocol error); without one it
// is 1006 abnormal with the error.
func rawEnd(code int, reason string, readErr error, stopping bool) (int, string, string, string) {
	stopped := stopping && errors.Is(readErr, os.ErrDeadlineExceeded)
	switch {
	case code == 0 && stopped:
		return record.WSCodeAbnormal, "", record.WSClosedAbnormal, "driver stopping: closed the socket, no close frame came"
	case code == 0:
		return record.WSCodeAbnormal, "", record.WSClosedAbnormal, readErr.Error()
	case stopped:
		return code, reason, record.WSClosedByServer, "driver stopping: the server had not ended the connection after its close frame"
	case errors.Is(readErr, errProtocol):
		return code, reason, record.WSClosedByServer, readErr.Error()
	}
	return code, reason, record.WSClosedByServer, ""
}
