package probe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/textproto"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// now is the wall clock in Unix nanoseconds, as results carry it.
func now() int64 { return time.Now().UnixNano() }

// trackConn records when the first byte arrived and when, and with which
// error, the first failed Read returned: that is when the probe saw the
// socket end. Only the probe's goroutine reads it; SetDeadline may be
// called concurrently (net.Conn allows that).
type trackConn struct {
	net.Conn
	head  []byte // the first maxHead bytes read: the raw response head
	first int64  // first Read that returned data
	errAt int64  // first Read that returned an error
	err   error
}

func (c *trackConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	t := now()
	if n > 0 && c.first == 0 {
		c.first = t
	}
	if keep := maxHead - len(c.head); n > 0 && keep > 0 {
		c.head = append(c.head, p[:min(n, keep)]...)
	}
	if err != nil && c.err == nil {
		c.err, c.errAt = err, t
	}
	return n, err
}

// maxHead bounds the raw response head trackConn keeps.
const maxHead = 16 << 10

// rawHeader returns the values of header name in the raw response head,
// joined with ", "; ok is false when the head could not be parsed.
// http.ReadResponse deletes "Connection: close" from the parsed header, so
// the probe reads the header as it was sent.
func rawHeader(raw []byte, name string) (v string, ok bool) {
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		return "", false
	}
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(raw[:end+4])))
	if _, err := tp.ReadLine(); err != nil { // the status line
		return "", false
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return "", false
	}
	return strings.Join(h.Values(name), ", "), true
}

// The values of Result.Closed (defined in record).
const (
	ClosedEOF     = record.ProbeClosedEOF
	ClosedReset   = record.ProbeClosedReset
	ClosedError   = record.ProbeClosedError
	ClosedTimeout = record.ProbeClosedTimeout
	ClosedStopped = record.ProbeClosedStopped
)

// closedKind maps the error that ended the socket to a Closed value;
// stopped tells whether the probe's context was cancelled.
func closedKind(err error, stopped bool) string {
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return ClosedEOF
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE):
		return ClosedReset
	case isTimeout(err) && stopped:
		return ClosedStopped
	case isTimeout(err):
		return ClosedTimeout
	}
	return ClosedError
}

func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
