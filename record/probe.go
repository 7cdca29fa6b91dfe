package record

// TypeProbe is the "type" of the probe's one ProbeResult line.
const TypeProbe = "probe"

func init() { registerLineType[ProbeResult](TypeProbe) }

// LoadKindProbe is Meta.LoadKind for a run driven by the raw-socket probe;
// the load agent's runs leave Meta.LoadKind empty.
const LoadKindProbe = "probe"

// ProbeResult is the record of one raw-socket probe (load kind probe),
// printed by cmd/probe as its one TypeProbe line and kept in Meta.Probe.
// Package probe produces it (probe.Result is this type). Timestamps are
// wall-clock Unix nanoseconds taken in the probe's process; zero means "did
// not happen".
type ProbeResult struct {
	// Type is always TypeProbe ("probe").
	Type string `json:"type"`
	// Kind is the probe kind (idle or inflight).
	Kind ProbeKind `json:"kind"`
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
	ResponseClass Class `json:"response_class"`
	// Status is the response status, 0 when none was read.
	Status int `json:"status,omitempty"`
	// ConnHeader is the response's Connection header as sent, lower-cased
	// ("close", "keep-alive", "" when absent); KeepAliveHeader its
	// Keep-Alive header as sent (e.g. "timeout=5").
	ConnHeader      string `json:"conn_header,omitempty"`
	KeepAliveHeader string `json:"keep_alive_header,omitempty"`
	// BodyBytes is the size of the response body read.
	BodyBytes int64 `json:"body_bytes,omitempty"`

	// Closed says how the socket ended: ProbeClosedEOF, ProbeClosedReset,
	// ProbeClosedError (the server side), ProbeClosedTimeout (still open at
	// the probe's bound), ProbeClosedStopped (the probe was stopped first)
	// or "" when it was never observed (no connection, or the probe gave up
	// on a malformed response; see Error).
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

func init() { registerPart[ProbeResult](metaParts, "probe", "load_kind") }

// Probe is the probe's {"type":"probe",...} line (load kind probe; nil
// for other runs or when it never printed one).
func (m Meta) Probe() *ProbeResult { return partOf[ProbeResult](m.parts, "probe") }

// ProbeKind is what the probe's one request is for.
type ProbeKind string

// The probe kinds.
const (
	// ProbeIdle sends one short request (default GET /slow?ms=0) and then
	// watches the idle keep-alive socket. Load start = response end.
	ProbeIdle ProbeKind = "idle"
	// ProbeInflight sends one long request (default GET /slow?ms=4000), so
	// that it is in flight when the signal comes, then watches the socket.
	// Load start = request written.
	ProbeInflight ProbeKind = "inflight"
)

// The values of ProbeResult.Closed.
const (
	// ProbeClosedEOF: the server closed the socket cleanly (FIN; Read
	// returned io.EOF).
	ProbeClosedEOF = "eof"
	// ProbeClosedReset: the server reset the socket (RST: ECONNRESET,
	// ECONNABORTED, or EPIPE on a write).
	ProbeClosedReset = "reset"
	// ProbeClosedError: the socket failed with another error (see
	// ProbeResult.Error).
	ProbeClosedError = "error"
	// ProbeClosedTimeout: the socket was still open when the probe's bound
	// (-max-wait after the response, or -timeout for the response) passed.
	ProbeClosedTimeout = "timeout"
	// ProbeClosedStopped: the probe itself was stopped (SIGTERM to the
	// probe) while the socket was still open.
	ProbeClosedStopped = "stopped"
)

// ServerClosed reports whether the server ended the socket: with a FIN
// (eof) or an RST (reset).
func (r *ProbeResult) ServerClosed() bool {
	return r.Closed == ProbeClosedEOF || r.Closed == ProbeClosedReset
}

// ProbeAnalysis summarises one ProbeResult relative to the time the stop
// signal reached the target. Every *float64 is null (nil) when there is
// nothing to measure: the signal time is unknown (0), or the event did not
// happen. Durations are milliseconds; a negative "after signal" value
// means the event came before the signal.
type ProbeAnalysis struct {
	// Kind is the probe kind.
	Kind ProbeKind `json:"kind"`
	// SignalAfterStartMs is signal - load start (the planned action delay
	// plus the engine's latency).
	SignalAfterStartMs *float64 `json:"signal_after_start_ms"`
	// ResponseAfterSignalMs is response end - signal (P6: the slow response
	// still arrives ~3 s after a SIGTERM at 1 s).
	ResponseAfterSignalMs *float64 `json:"response_after_signal_ms"`
	// ResponseAfterStartMs is response end - load start (for inflight, the
	// request's latency from the moment it was written; P6: ~4010).
	ResponseAfterStartMs *float64 `json:"response_after_start_ms"`
	// ResponseStatus is the response status (0: none).
	ResponseStatus int `json:"response_status"`
	// ResponseConnHeader is the response's Connection header ("close",
	// "keep-alive" or ""); P6 is about it still saying keep-alive.
	ResponseConnHeader string `json:"response_conn_header"`
	// SocketClosedAfterSignalMs is socket closed - signal (P5: ~1 ms);
	// null when the server never closed the socket within the probe's wait.
	SocketClosedAfterSignalMs *float64 `json:"socket_closed_after_signal_ms"`
	// SocketClosedAfterStartMs is socket closed - load start (P6: ~10018).
	SocketClosedAfterStartMs *float64 `json:"socket_closed_after_start_ms"`
	// SocketClosedAfterResponseMs is socket closed - response end: how long
	// the socket stayed open and idle (P6: keep-alive timeout + ~1 s).
	SocketClosedAfterResponseMs *float64 `json:"socket_closed_after_response_ms"`
	// ClosedBy is eof or reset when the server closed the socket, error
	// when it failed otherwise, never when it was not seen closed (probe
	// bound reached, probe stopped, or no connection).
	ClosedBy string `json:"closed_by"`
}

// Analyze summarises r relative to signalNs, the wall-clock time (Unix ns)
// the signal reached the target; 0 when unknown or the action never fired.
// It is pure.
func (r *ProbeResult) Analyze(signalNs int64) ProbeAnalysis {
	m := ProbeAnalysis{Kind: r.Kind, ResponseStatus: r.Status, ResponseConnHeader: r.ConnHeader, ClosedBy: "never"}
	closed := int64(0)
	switch r.Closed {
	case ProbeClosedEOF, ProbeClosedReset, ProbeClosedError:
		if r.SocketClosedNs != 0 {
			m.ClosedBy = r.Closed
			closed = r.SocketClosedNs
		}
	}
	m.SignalAfterStartMs = diffMs(signalNs, r.LoadStartNs)
	m.ResponseAfterSignalMs = diffMs(r.ResponseEndNs, signalNs)
	m.ResponseAfterStartMs = diffMs(r.ResponseEndNs, r.LoadStartNs)
	m.SocketClosedAfterSignalMs = diffMs(closed, signalNs)
	m.SocketClosedAfterStartMs = diffMs(closed, r.LoadStartNs)
	m.SocketClosedAfterResponseMs = diffMs(closed, r.ResponseEndNs)
	return m
}

// diffMs is (a - b) in milliseconds, nil when either time is unknown.
func diffMs(a, b int64) *float64 {
	if a == 0 || b == 0 {
		return nil
	}
	v := float64(a-b) / 1e6
	return &v
}
