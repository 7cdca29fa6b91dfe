package ws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/loadgen"
	"github.com/shutdownlab/shutdownlab/record"
)

// connEnd is how one attempt ended, for the reconnect policy.
type connEnd struct {
	opened  bool          // the handshake succeeded
	openFor time.Duration // how long it stayed open
	errored bool          // failed, or ended without a close frame
}

// attempt makes attempt n: the handshake, its record, and, when it opened,
// the connection's life until it ends, and its close record.
func (c *client) attempt(ctx context.Context, n int, cause string, delay time.Duration, retry int) connEnd {
	u := c.cfg.URL
	a := record.WSAttempt{Type: record.TypeWSAttempt, Client: c.id, Attempt: n, Cause: cause, Retry: retry,
		DelayMs: float64(delay.Microseconds()) / 1000}
	if c.cfg.Resume {
		c.mu.Lock()
		cur, ok := c.track.cursor(c.cfg.ResumeOverlap)
		c.mu.Unlock()
		if ok {
			a.After = &cur
			u += "?after=" + strconv.FormatInt(cur, 10)
		}
	}
	d := &recordingDialer{addr: c.host()}
	hctx, cancel := context.WithTimeout(ctx, c.cfg.HandshakeTimeout)
	a.Start = time.Now().UnixNano()
	conn, resp, err := websocket.Dial(hctx, u, &websocket.DialOptions{HTTPClient: d.client()})
	a.End = time.Now().UnixNano()
	cancel()
	switch {
	case err == nil:
		a.Class, a.Status, a.Conn = record.ClassOK, http.StatusSwitchingProtocols, c.connIDs.Add(1)
		a.Upstream = resp.Header.Get(record.UpstreamHeader)
	case resp != nil:
		a.Class, a.Status, a.Refusal = record.ClassHTTPError, resp.StatusCode, resp.Header.Get(record.RefusalHeader)
		a.Upstream = resp.Header.Get(record.UpstreamHeader)
	case ctx.Err() != nil:
		a.Class, err = record.ClassTimeout, fmt.Errorf("driver stopping: %w", err)
	case d.dialed.Load():
		a.Class = loadgen.Classify(loadgen.StageRead, err, 0)
	default:
		a.Class = loadgen.Classify(loadgen.StageDial, err, 0)
	}
	if err != nil {
		a.Error = err.Error()
	}
	c.recordAttempt(a, n, err == nil)
	if err != nil {
		return connEnd{errored: true}
	}
	w := c.serve(ctx, conn, d.conn, a)
	return connEnd{opened: true, openFor: time.Duration(w.Closed - w.Opened), errored: w.ClosedBy == record.WSClosedAbnormal}
}

// serve reads the connection's events until it ends; when ctx ends first,
// it closes the connection itself (1000), closing the socket after
// CloseTimeout if the server does not answer. It records the close.
func (c *client) serve(ctx context.Context, conn *websocket.Conn, raw net.Conn, a record.WSAttempt) record.WSClose {
	w := record.WSClose{Type: record.TypeWSClose, Client: c.id, Attempt: a.Attempt, Conn: a.Conn, Opened: a.End}
	var closing, timedOut atomic.Bool
	var closeErr error // Close's result, once stopped is closed
	stopped := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(stopped)
		closing.Store(true)
		t := time.AfterFunc(c.cfg.CloseTimeout, func() { timedOut.Store(true); _ = raw.Close() })
		defer t.Stop()
		closeErr = conn.Close(websocket.StatusNormalClosure, "driver stopping")
		if timedOut.Load() {
			// The library reports a socket closed under it as success.
			closeErr = fmt.Errorf("no answer to the close frame within %v", c.cfg.CloseTimeout)
		}
	})
	var err error
	for {
		var typ websocket.MessageType
		var b []byte
		typ, b, err = conn.Read(context.Background())
		if err != nil {
			break
		}
		var f record.WSFrame
		if typ != websocket.MessageText || json.Unmarshal(b, &f) != nil || f.Type != record.WSFrameEvent {
			continue // not an event: nothing to account
		}
		c.mu.Lock()
		c.track.deliver(f, &w.WSEventCounts)
		c.mu.Unlock()
	}
	w.Closed = time.Now().UnixNano()
	c.mu.Lock()
	_, w.LastSeq, _ = c.track.delivered.bounds()
	c.mu.Unlock()
	if !stop() {
		<-stopped
	}
	_ = raw.Close()
	w.Code, w.Reason, w.ClosedBy = closedBy(err, closing.Load(), closeErr)
	if w.ClosedBy == record.WSClosedAbnormal {
		w.Error = err.Error()
		if closing.Load() && closeErr != nil {
			w.Error = closeErr.Error() + "; " + w.Error
		}
	}
	c.recordClose(w)
	return w
}

// recordAttempt counts attempt n (opened or failed) and hands its record
// to the sink; the client's first attempt marks it started.
func (c *client) recordAttempt(a record.WSAttempt, n int, opened bool) {
	c.mu.Lock()
	if opened {
		c.opened++
	} else {
		c.failed++
	}
	c.mu.Unlock()
	c.sink.Attempt(a)
	if n == 1 {
		c.started.done()
	}
}

// recordClose counts an opened connection's end and hands its record to
// the sink.
func (c *client) recordClose(w record.WSClose) {
	c.mu.Lock()
	c.closes++
	c.mu.Unlock()
	c.sink.Close(w)
}

// closedBy decides who ended a connection from the reader's error and,
// when the driver was stopping, the result of its Close: the close frame
// the reader got; else, when the driver's Close completed the handshake
// itself (the library then reads the answer, and the reader only sees the
// socket closed), the answer Close saw; else no close frame (1006).
func closedBy(readErr error, closing bool, closeErr error) (code int, reason, by string) {
	var ce websocket.CloseError
	switch {
	// The echo of the driver's own 1000; a server frame that crossed it
	// (another code) is the server's close.
	case errors.As(readErr, &ce) && closing && ce.Code == websocket.StatusNormalClosure:
		return int(ce.Code), ce.Reason, record.WSClosedByClient
	case errors.As(readErr, &ce):
		return int(ce.Code), ce.Reason, record.WSClosedByServer
	case closing && closeErr == nil: // Close got the echo of its 1000
		return int(websocket.StatusNormalClosure), "", record.WSClosedByClient
	case closing && errors.As(closeErr, &ce):
		return int(ce.Code), ce.Reason, record.WSClosedByServer
	}
	return record.WSCodeAbnormal, "", record.WSClosedAbnormal
}

// host is the host:port of the configured URL (validated by Config).
func (c *client) host() string {
	u, _ := url.Parse(c.cfg.URL)
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "80")
	}
	return u.Host
}

// recordingDialer dials only addr, and keeps the connection it made and
// whether the dial succeeded (for the failure class).
type recordingDialer struct {
	addr   string
	dialed atomic.Bool
	conn   net.Conn
}

// client is an HTTP client for one handshake: its own connection (no
// keep-alive pool, no proxy), no redirects.
func (d *recordingDialer) client() *http.Client {
	return &http.Client{
		Transport: &http.Transport{DisableKeepAlives: true, DialContext: d.dial},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

func (d *recordingDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr != d.addr {
		return nil, fmt.Errorf("dial %s: not the configured address %s", addr, d.addr)
	}
	var nd net.Dialer
	conn, err := nd.DialContext(ctx, network, addr)
	if err == nil {
		d.conn = conn
		d.dialed.Store(true)
	}
	return conn, err
}
