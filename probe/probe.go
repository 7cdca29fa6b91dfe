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

// Result is the record of one probe, written by cmd/probe as one JSON line.
// Timestamps are wall-clock Unix nanoseconds taken in the probe's process;
// zero means "did not happen".
type Result struct {
	// Type is always "probe".
	Type string `json:"type"`
	// Kind is the probe kind (idle or inflight).
	Kind Kind `json:"kind"`
	// Target, Path and ID are what was requested (ID is the X-Request-Id).
	Target string `json:"target"`
	Path   string `json:"path"`
	ID     string `json:"id"`
	// LocalAddr and RemoteAddr are the socket's addresses (to find it in a
	// packet capture or a server log); empty when the dial failed.
	LocalAddr  string `json:"local_addr,omitempty"`
	RemoteAddr string `json:"remote_addr,omitempty"`
	// MaxWaitMs is the bound on the idle wait after the response.
	MaxWaitMs float64 `json:"max_wait_ms"`

	// StartNs is when the probe began dialing.
	StartNs int64 `json:"start_ns"`
	// ConnectedNs is when the connection was established.
	ConnectedNs int64 `json:"connected_ns,omitempty"`
	// WrittenNs is when the whole request was written.
	WrittenNs int64 `json:"written_ns,omitempty"`
	// FirstByteNs is when the first response byte arrived.
	FirstByteNs int64 `json:"first_byte_ns,omitempty"`
	// ResponseEndNs is when the response body had been read completely;
	// the idle wait starts here.
	ResponseEndNs int64 `json:"response_end_ns,omitempty"`
	// LoadStartNs is the probe's load start, also printed on its start
	// line: ResponseEndNs for idle, WrittenNs for inflight (0 when that
	// moment never came).
	LoadStartNs int64 `json:"load_start_ns,omitempty"`
	// SocketClosedNs is when the probe saw the server end the socket (the
	// Read or Write that returned EOF or an error); 0 when it did not
	// within the probe's bounds.
	SocketClosedNs int64 `json:"socket_closed_ns,omitempty"`
	// EndNs is when the probe finished.
	EndNs int64 `json:"end_ns"`

	// ResponseClass is the request's outcome, with the load agent's classes
	// (loadgen.Classify): ok, http_error, refused, reset, eof, timeout.
	ResponseClass record.Class `json:"response_class"`
	// Status is the response status, 0 when none was read.
	Status int `json:"status,omitempty"`
	// ConnHeader is the response's Connection header as sent, lower-cased
	// ("close", "keep-alive", "" when absent); KeepAliveHeader its
	// Keep-Alive header as sent (e.g. "timeout=5").
	ConnHeader      string `json:"conn_header,omitempty"`
	KeepAliveHeader string `json:"keep_alive_header,omitempty"`
	// BodyBytes is the size of the response body read.
	BodyBytes int64 `json:"body_bytes,omitempty"`

	// Closed says how the socket ended: eof, reset, error (the server
	// side), timeout (still open at the probe's bound), stopped (the probe
	// was stopped first) or "" when it was never observed (no connection,
	// or the probe gave up on a malformed response; see Error).
	Closed string `json:"closed"`
	// UnexpectedBytes counts bytes received after the response (nothing
	// should arrive on an idle socket; a server may send e.g. a 408).
	UnexpectedBytes int `json:"unexpected_bytes,omitempty"`
	// UnexpectedData is the first 256 of those bytes (non-UTF-8 bytes are
	// replaced when encoded as JSON).
	UnexpectedData string `json:"unexpected_data,omitempty"`
	// Error is the error that ended the request or the socket, if any.
	Error string `json:"error,omitempty"`
}

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
	r := Result{Type: "probe", Kind: cfg.Kind, Target: cfg.Target, Path: cfg.Path, ID: cfg.ID,
		MaxWaitMs: float64(cfg.MaxWait) / float64(time.Millisecond)}
	r.run(ctx, cfg, onStart)
	r.EndNs = now()
	return r, nil
}

// run fills r step by step: dial, write the request, read the response,
// wait for the server to end the socket. A step that ends the probe
// records why and returns false.
func (r *Result) run(ctx context.Context, cfg Config, onStart func(int64)) {
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
func (r *Result) dial(ctx context.Context, cfg Config) (net.Conn, bool) {
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
func (r *Result) writeRequest(s *socket, cfg Config) bool {
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
func (r *Result) readResponse(s *socket) bool {
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
func (r *Result) idleWait(s *socket, maxWait time.Duration) {
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
func (r *Result) setClosed(kind string, at int64) {
	r.Closed = kind
	if kind == ClosedEOF || kind == ClosedReset || kind == ClosedError {
		r.SocketClosedNs = at
	}
}

// failResponse records a response that could not be read at stage.
func (r *Result) failResponse(s *socket, stage loadgen.Stage, err error) {
	r.ResponseClass = loadgen.Classify(stage, err, 0)
	r.Error = err.Error()
	r.FirstByteNs = s.c.first
	if s.c.err != nil {
		r.setClosed(closedKind(s.c.err, s.stopped()), s.c.errAt)
	}
	// Otherwise the response was malformed on a live socket: the probe
	// gives up and Closed stays "".
}
