// Package probe times a server's socket behaviour around a stop signal with
// one raw HTTP/1.1 connection.
//
// A probe dials its own net.Conn, writes one keep-alive GET by hand, reads
// the response with http.ReadResponse, and then keeps the socket open, idle,
// blocked in Read, until the server closes it (a clean FIN is "eof", an RST
// is "reset") or a bound passes. Every moment is recorded as a wall-clock
// Unix nanosecond timestamp in a Result (record.ProbeResult), so that it can
// be compared with the time the runner sent the signal (see
// record.ProbeResult.Analyze). Nothing is retried and no
// second request is ever sent on the connection.
//
// Two kinds exist:
//
//   - KindIdle (the published P5 fact): one finished request, then the
//     socket sits idle. Its load start, the moment a signal is scheduled
//     from, is when the response ended: the idle period began.
//   - KindInflight (P6): one long request (GET /slow?ms=4000) in flight
//     when the signal comes. Its load start is when the request was
//     written. The response's Connection and Keep-Alive headers tell whether
//     the server announced the close; the socket is then watched exactly as
//     for an idle probe.
//
// Run performs one probe; loadgen.WaitReady polls a readiness path first (on fresh
// connections that are not part of the probe). The command cmd/probe wraps
// both for use as a container on a scenario network.
package probe
