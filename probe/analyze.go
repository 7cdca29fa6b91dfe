package probe

// Metrics summarises one probe Result relative to the time the stop signal
// reached the target. Every *float64 is null (nil) when there is nothing to
// measure: the signal time is unknown (0), or the event did not happen.
// Durations are milliseconds; a negative "after signal" value means the
// event came before the signal.
type Metrics struct {
	// Kind is the probe kind.
	Kind Kind `json:"kind"`
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
func Analyze(r Result, signalNs int64) Metrics {
	m := Metrics{Kind: r.Kind, ResponseStatus: r.Status, ResponseConnHeader: r.ConnHeader, ClosedBy: "never"}
	closed := int64(0)
	switch r.Closed {
	case ClosedEOF, ClosedReset, ClosedError:
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
