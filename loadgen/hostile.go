package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// Hostile clients: one attempt each, on its own connection, recorded as
// one record.Request with Hostile set and SentBytes saying how far the
// request got. Like every request of this package, an attempt ends in
// exactly one class and is never retried. Hostile makes one attempt;
// RunHostile (hostileload.go) drives many.
//
//   - record.HostileSlowHeaders trickles the request's headers, and
//     record.HostileSlowBody its body, at Rate bytes per second, then
//     reads the answer. An answer or a connection error that comes while
//     it trickles is the outcome (a 408 is http_error, a close eof, a
//     reset reset).
//   - record.HostileAbort writes the headers and AbortAfter bytes of a
//     BodyBytes body, waits Hold, and closes the connection: class
//     aborted, unless an answer or an error came first.

// HostileRequest configures one hostile attempt.
type HostileRequest struct {
	// Kind is record.HostileSlowHeaders, HostileSlowBody or HostileAbort.
	Kind string
	// Target is host:port; Host the Host header (default Target).
	Target, Host string
	// Method and Path (default POST /slow?ms=0).
	Method, Path string
	// BodyBytes is the body's Content-Length (default 1000 for slow_body
	// and abort, 0 for slow_headers).
	BodyBytes int
	// Rate is the trickle rate in bytes per second (slow kinds; > 0).
	Rate float64
	// AbortAfter is how many body bytes go out before the abort (abort;
	// default BodyBytes/2; less than BodyBytes).
	AbortAfter int
	// Hold is how long the abort waits after its last byte before it
	// closes (default 0), so that whatever the server does with a
	// half-received request has begun.
	Hold time.Duration
	// Reset closes an aborted connection with a TCP RST (SO_LINGER 0)
	// instead of a FIN.
	Reset bool
	// Timeout bounds the whole attempt (default 30 s); DialTimeout the
	// connect within it (default 3 s).
	Timeout, DialTimeout time.Duration
}

// withDefaults fills zero fields and checks the rest.
func (h HostileRequest) withDefaults() (HostileRequest, error) {
	if h.Host == "" {
		h.Host = h.Target
	}
	if h.Method == "" {
		h.Method = "POST"
	}
	if h.Path == "" {
		h.Path = "/slow?ms=0"
	}
	if h.BodyBytes == 0 && h.Kind != record.HostileSlowHeaders {
		h.BodyBytes = 1000
	}
	if h.AbortAfter == 0 {
		h.AbortAfter = h.BodyBytes / 2
	}
	if h.Timeout == 0 {
		h.Timeout = DefaultTimeout
	}
	if h.DialTimeout == 0 {
		h.DialTimeout = DefaultDialTimeout
	}
	bad := func(f string, v any, why string) error { return fmt.Errorf("hostile %s: %s=%v: %s", h.Kind, f, v, why) }
	switch {
	case h.Kind != record.HostileSlowHeaders && h.Kind != record.HostileSlowBody && h.Kind != record.HostileAbort:
		return h, fmt.Errorf("hostile kind %q: must be %s, %s or %s", h.Kind, record.HostileSlowHeaders, record.HostileSlowBody, record.HostileAbort)
	case h.Target == "":
		return h, bad("target", `""`, "required")
	case h.Kind != record.HostileAbort && !(h.Rate > 0 && h.Rate <= 1e9):
		return h, bad("rate", h.Rate, "must be > 0 bytes per second")
	case h.BodyBytes < 0:
		return h, bad("body_bytes", h.BodyBytes, "must be >= 0")
	case h.Kind == record.HostileSlowBody && h.BodyBytes == 0:
		return h, bad("body_bytes", h.BodyBytes, "slow_body needs a body")
	case h.Kind == record.HostileAbort && (h.AbortAfter < 0 || h.AbortAfter >= h.BodyBytes):
		return h, bad("abort_after", h.AbortAfter, fmt.Sprintf("must be in 0..%d (less than body_bytes)", h.BodyBytes-1))
	case h.Timeout < 0 || h.DialTimeout < 0 || h.Hold < 0:
		return h, bad("timeout", h.Timeout, "timeouts and hold must be >= 0")
	}
	return h, nil
}

// bytes returns the request's head (request line and headers, X-Request-Id
// id) and body.
func (h *HostileRequest) bytes(id string) (head, body []byte) {
	var sb strings.Builder
	sb.WriteString(h.Method + " " + h.Path + " HTTP/1.1\r\nHost: " + h.Host +
		"\r\nUser-Agent: shutdownlab-loadagent\r\nX-Request-Id: " + id + "\r\n")
	if h.BodyBytes > 0 || (h.Method != "GET" && h.Method != "HEAD") {
		sb.WriteString("Content-Length: " + strconv.Itoa(h.BodyBytes) + "\r\nContent-Type: application/octet-stream\r\n")
	}
	sb.WriteString("\r\n")
	return []byte(sb.String()), []byte(strings.Repeat("x", h.BodyBytes))
}

// answer is what the reading side of an attempt saw.
type answer struct {
	status     int
	connHeader string
	err        error
	first      int64
}

// readAnswer reads one response (and its body) from nc.
func readAnswer(nc *firstByteConn, method string, out chan<- answer) {
	resp, err := http.ReadResponse(bufio.NewReader(nc), &http.Request{Method: method})
	a := answer{err: err}
	if err == nil {
		a.status = resp.StatusCode
		a.connHeader = strings.ToLower(resp.Header.Get("Connection"))
		if a.connHeader == "" && resp.Close {
			a.connHeader = "close"
		}
		_, a.err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	a.first = nc.first
	out <- a
}

// Hostile makes one attempt of h with X-Request-Id id and returns its
// record. A bad h is an error (nothing was attempted). ctx ending cuts the
// attempt off as timeout ("agent stopping").
func Hostile(ctx context.Context, h HostileRequest, id string, worker int, conn uint64) (record.Request, error) {
	h, err := h.withDefaults()
	if err != nil {
		return record.Request{}, err
	}
	start := time.Now()
	rec := record.Request{Type: record.TypeRequest, ID: id, Method: h.Method, Path: h.Path, Worker: worker,
		Start: start.UnixNano(), Hostile: h.Kind}
	deadline := start.Add(h.Timeout)
	d := net.Dialer{Deadline: start.Add(min(h.Timeout, h.DialTimeout))}
	raw, err := d.DialContext(ctx, "tcp", h.Target)
	if err != nil {
		if ctx.Err() != nil {
			err = errStopping
		}
		return finish(rec, StageDial, err, answer{}), nil
	}
	nc := &firstByteConn{Conn: raw}
	defer nc.Close()
	rec.Connected, rec.Conn = now(), conn
	nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	answers := make(chan answer, 1)
	go readAnswer(nc, h.Method, answers)
	head, body := h.bytes(id)
	var a answer
	got, err := false, error(nil)
	switch h.Kind {
	case record.HostileSlowHeaders:
		got, err = trickle(nc, append(head, body...), h.Rate, &rec.SentBytes, answers, &a)
	case record.HostileSlowBody:
		if err = writeCounted(nc, head, &rec.SentBytes); err == nil {
			got, err = trickle(nc, body, h.Rate, &rec.SentBytes, answers, &a)
		}
	case record.HostileAbort:
		if err = writeCounted(nc, append(head, body[:h.AbortAfter]...), &rec.SentBytes); err == nil {
			got = hold(h.Hold, answers, &a)
		}
		if err == nil && !got {
			return abort(rec, nc, h), nil
		}
	}
	if err == nil && !got {
		rec.Written = now()
	}
	if !got {
		// The reader's view decides, also after a failed write: an answer
		// the server sent before closing is the outcome, else how the
		// connection ended. Bounded: the deadline ends the read.
		a = <-answers
	}
	if a.err != nil && ctx.Err() != nil {
		a.err = errStopping
	}
	return finish(rec, StageRead, a.err, a), nil
}

// finish completes rec with the outcome of err at stage (nil: answer a).
func finish(rec record.Request, stage Stage, err error, a answer) record.Request {
	rec.End = now()
	rec.FirstByte = a.first
	rec.Status = a.status
	rec.ConnHeader = a.connHeader
	rec.Class = Classify(stage, err, a.status)
	if err != nil {
		rec.Error = err.Error()
		rec.Status = 0 // an answer cut off mid-body is not a status the client got
	}
	return rec
}

// abort closes the connection mid-body: class aborted.
func abort(rec record.Request, nc *firstByteConn, h HostileRequest) record.Request {
	if tc, ok := nc.Conn.(*net.TCPConn); ok && h.Reset {
		tc.SetLinger(0)
	}
	nc.Close()
	rec.End = now()
	rec.Class = record.ClassAborted
	how := "closed"
	if h.Reset {
		how = "reset"
	}
	rec.Error = fmt.Sprintf("aborted by the client: connection %s after %d of %d body bytes", how, h.AbortAfter, h.BodyBytes)
	return rec
}

// writeCounted writes b, adding what went out to *sent.
func writeCounted(nc net.Conn, b []byte, sent *int64) error {
	n, err := nc.Write(b)
	*sent += int64(n)
	return err
}

// trickle writes b at rate bytes per second (the first byte at once, then
// byte k at k/rate s, in writes at least 10 ms apart). It stops early when
// an answer arrives (got true, *a set) or a write fails.
func trickle(nc net.Conn, b []byte, rate float64, sent *int64, answers <-chan answer, a *answer) (bool, error) {
	t0 := time.Now()
	written := 0
	for written < len(b) {
		due := int(rate*time.Since(t0).Seconds()) + 1
		due = min(max(due, written+1), len(b))
		n, err := nc.Write(b[written:due])
		written += n
		*sent += int64(n)
		if err != nil {
			return false, err
		}
		if written == len(b) {
			break
		}
		wait := max(time.Duration(float64(written)/rate*float64(time.Second))-time.Since(t0), 10*time.Millisecond)
		if hold(wait, answers, a) {
			return true, nil
		}
	}
	return false, nil
}

// hold waits d, or until an answer arrives (true, *a set).
func hold(d time.Duration, answers <-chan answer, a *answer) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case *a = <-answers:
		return true
	case <-t.C:
		return false
	}
}
