package probe

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/loadgen"
	"github.com/shutdownlab/shutdownlab/record"
)

// maxUnexpectedData is how many unexpected bytes Result.UnexpectedData keeps.
const maxUnexpectedData = 256

// Result is the record of one probe, written by cmd/probe as one JSON line
// (its type, TypeProbe, and fields are defined in package record, where the
// runner and report read it).
type Result = record.ProbeResult

// Run performs one probe and returns its Result. onStart, if not nil, is
// called once with the load start (see Result.LoadStartNs) as soon as that
// moment has passed, before the probe goes on waiting; it is not called
// when the moment never comes (the dial or, for idle, the response failed).
// Cancelling ctx stops the probe at once: the socket is then recorded as
// closed "stopped" unless the server had already closed it.
//
// The only error is a *ConfigError for an invalid cfg (after WithDefaults);
// every network outcome is in the Result.
func Run(ctx context.Context, cfg Config, onStart func(loadStartNs int64)) (Result, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	if onStart == nil {
		onStart = func(int64) {}
	}
	r := Result{Type: record.TypeProbe, Kind: cfg.Kind, Target: cfg.Target, Path: cfg.Path, ID: cfg.ID,
		MaxWaitMs: float64(cfg.MaxWait) / float64(time.Millisecond)}
	filler{&r}.run(ctx, cfg, onStart)
	r.EndNs = now()
	return r, nil
}

// filler fills in a Result as the probe runs (its methods are the probe's
// steps; Result itself is record's type).
type filler struct{ *Result }

// run fills r step by step: dial, write the request, read the response,
// wait for the server to end the socket. A step that ends the probe
// records why and returns false.
func (r filler) run(ctx context.Context, cfg Config, onStart func(int64)) {
	nc, ok := r.dial(ctx, cfg)
	if !ok {
		return
	}
	defer nc.Close()
	s := newSocket(ctx, nc)
	defer s.stopWatch()
	s.setDeadline(time.Now().Add(cfg.Timeout))
	if !r.writeRequest(s, cfg) {
		return
	}
	if cfg.Kind == KindInflight {
		r.LoadStartNs = r.WrittenNs
		onStart(r.LoadStartNs)
	}
	if !r.readResponse(s) {
		return
	}
	if cfg.Kind == KindIdle {
		r.LoadStartNs = r.ResponseEndNs
		onStart(r.LoadStartNs)
	}
	if s.c.err != nil {
		// The socket already ended while the body was read (a body
		// delimited by the close).
		r.setClosed(closedKind(s.c.err, s.stopped()), s.c.errAt)
		return
	}
	r.idleWait(s, cfg.MaxWait)
}

// socket is the probe's connection while it runs: the tracked conn, the
// reader over it, and the context whose end stops every blocked call.
type socket struct {
	ctx       context.Context
	nc        net.Conn
	c         *trackConn
	br        *bufio.Reader
	stopWatch func() bool
}

// pastDeadline is a deadline in the past: setting it unblocks any Read.
var pastDeadline = time.Unix(1, 0)

// newSocket wraps nc; stopping ctx sets a deadline in the past, which
// unblocks any Read (call stopWatch when done).
func newSocket(ctx context.Context, nc net.Conn) *socket {
	c := &trackConn{Conn: nc}
	s := &socket{ctx: ctx, nc: nc, c: c, br: bufio.NewReader(c)}
	s.stopWatch = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(pastDeadline) })
	return s
}

// setDeadline sets the socket's deadline, unless the probe was stopped.
func (s *socket) setDeadline(t time.Time) {
	_ = s.nc.SetDeadline(t)
	if s.stopped() { // the AfterFunc may have run before us
		_ = s.nc.SetDeadline(pastDeadline)
	}
}

// stopped reports whether the probe was stopped.
func (s *socket) stopped() bool { return s.ctx.Err() != nil }

// dial connects to the target; false (with the class and error recorded)
// when it could not.
func (r filler) dial(ctx context.Context, cfg Config) (net.Conn, bool) {
	r.StartNs = now()
	d := net.Dialer{Timeout: cfg.DialTimeout}
	nc, err := d.DialContext(ctx, "tcp", cfg.Target)
	if err != nil {
		r.ResponseClass = loadgen.Classify(loadgen.StageDial, err, 0)
		if ctx.Err() != nil { // stopped while dialing, like loadgen's "agent stopping"
			r.ResponseClass = record.ClassTimeout
		}
		r.Error = err.Error()
		return nil, false
	}
	r.ConnectedNs = now()
	r.LocalAddr, r.RemoteAddr = nc.LocalAddr().String(), nc.RemoteAddr().String()
	return nc, true
}

// writeRequest writes the probe's one GET; false when the write failed.
func (r filler) writeRequest(s *socket, cfg Config) bool {
	req := "GET " + cfg.Path + " HTTP/1.1\r\nHost: " + cfg.Host +
		"\r\nUser-Agent: shutdownlab-probe\r\nX-Request-Id: " + cfg.ID +
		"\r\nConnection: keep-alive\r\n\r\n"
	if _, err := io.WriteString(s.nc, req); err != nil {
		r.ResponseClass = loadgen.Classify(loadgen.StageWrite, err, 0)
		r.Error = err.Error()
		r.setClosed(closedKind(err, s.stopped()), now())
		return false
	}
	r.WrittenNs = now()
	return true
}

// readResponse reads the response head and the whole body and records
// them; false when the response could not be read.
func (r filler) readResponse(s *socket) bool {
	resp, err := http.ReadResponse(s.br, &http.Request{Method: http.MethodGet})
	if err != nil {
		r.failResponse(s, loadgen.StageRead, err)
		return false
	}
	r.Status = resp.StatusCode
	r.KeepAliveHeader = resp.Header.Get("Keep-Alive")
	if v, ok := rawHeader(s.c.head, "Connection"); ok {
		r.ConnHeader = strings.ToLower(v)
	} else if v := resp.Header.Get("Connection"); v != "" {
		r.ConnHeader = strings.ToLower(v)
	} else if resp.Close && resp.ProtoAtLeast(1, 1) {
		r.ConnHeader = "close" // as loadgen: ReadResponse deleted it
	}
	r.BodyBytes, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		r.failResponse(s, loadgen.StageBody, err)
		return false
	}
	r.FirstByteNs = s.c.first
	r.ResponseEndNs = now()
	if s.c.err != nil {
		// The body was delimited by the socket's end: it ended then.
		r.ResponseEndNs = s.c.errAt
	}
	r.ResponseClass = loadgen.Classify(loadgen.StageBody, nil, r.Status)
	return true
}

// idleWait blocks in Read until the server ends the socket, or maxWait
// after the response, or the probe is stopped; it keeps whatever arrives.
func (r filler) idleWait(s *socket, maxWait time.Duration) {
	s.setDeadline(time.Unix(0, r.ResponseEndNs).Add(maxWait))
	buf := make([]byte, 512)
	for {
		n, err := s.br.Read(buf)
		if n > 0 {
			r.UnexpectedBytes += n
			if keep := maxUnexpectedData - len(r.UnexpectedData); keep > 0 {
				r.UnexpectedData += string(buf[:min(n, keep)])
			}
		}
		if err != nil {
			at := s.c.errAt
			if s.c.err == nil { // cannot happen with bufio, but be safe
				at = now()
			}
			kind := closedKind(err, s.stopped())
			if kind == ClosedError || kind == ClosedReset {
				r.Error = err.Error()
			}
			r.setClosed(kind, at)
			return
		}
	}
}

// setClosed records how the socket ended; the time only when the server
// ended it.
func (r filler) setClosed(kind string, at int64) {
	r.Closed = kind
	if kind == ClosedEOF || kind == ClosedReset || kind == ClosedError {
		r.SocketClosedNs = at
	}
}

// failResponse records a response that could not be read at stage.
func (r filler) failResponse(s *socket, stage loadgen.Stage, err error) {
	r.ResponseClass = loadgen.Classify(stage, err, 0)
	r.Error = err.Error()
	r.FirstByteNs = s.c.first
	if s.c.err != nil {
		r.setClosed(closedKind(s.c.err, s.stopped()), s.c.errAt)
	}
	// Otherwise the response was malformed on a live socket: the probe
	// gives up and Closed stays "".
}
