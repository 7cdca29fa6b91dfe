// Package probemetrics computes the metrics of a run driven by the
// raw-socket probe (load.kind probe): record.ProbeResult.Analyze of its
// probe line against the signal's best arrival time. Pure; report holds the
// result as a part of its Metrics (probe.Of), and its capability defines
// the rows.
package probemetrics

import (
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Metrics are the metrics of a run driven by a raw-socket probe
// (Meta.LoadKind record.LoadKindProbe), computed by
// record.ProbeResult.Analyze against shutdown.SignalTime. report.Metrics
// holds them as a part (probe.Of), flat in its JSON: absent from the
// JSON of agent runs, and present (null when there is nothing to measure) in
// probe runs.
type Metrics struct {
	// ProbeResponseAfterSignalMs is response end - t (P6: the slow
	// response still arrives ~3 s after a SIGTERM at 1 s); null without a
	// complete response or signal.
	ProbeResponseAfterSignalMs *float64 `json:"probe_response_after_signal_ms"`
	// ProbeResponseAfterStartMs is response end - the probe's load start
	// (inflight: the latency from the write; P6: ~4010).
	ProbeResponseAfterStartMs *float64 `json:"probe_response_after_start_ms"`
	// ProbeResponseKeepalive is true when the response's Connection header
	// was not "close" (the server did not announce the close); null when
	// no response was read.
	ProbeResponseKeepalive *bool `json:"probe_response_keepalive"`
	// ProbeSocketClosedAfterSignalMs is socket closed - t (P5: ~1 ms);
	// null when the server never closed the socket within max_wait.
	ProbeSocketClosedAfterSignalMs *float64 `json:"probe_socket_closed_after_signal_ms"`
	// ProbeSocketClosedAfterResponseMs is socket closed - response end:
	// how long the socket sat idle (P6: keep-alive timeout + ~1 s).
	ProbeSocketClosedAfterResponseMs *float64 `json:"probe_socket_closed_after_response_ms"`
	// ProbeServerClosed is true when the server ended the socket with a
	// FIN (eof) or an RST (reset).
	ProbeServerClosed bool `json:"probe_server_closed"`
}

// Compute returns the probe metrics of a probe run (nil for another
// load kind) and the note on the probe's own error. Whether the run
// accounts for itself (exactly one probe line) is report's question.
func Compute(meta record.Meta) (*Metrics, []string) {
	if meta.LoadKind != record.LoadKindProbe && meta.Probe() == nil {
		return nil, nil
	}
	pm := &Metrics{}
	res := meta.Probe()
	if res == nil || res.Type != record.TypeProbe {
		return pm, nil
	}
	t, _ := shutdown.SignalTime(meta)
	a := res.Analyze(t)
	pm.ProbeResponseAfterSignalMs = a.ResponseAfterSignalMs
	pm.ProbeResponseAfterStartMs = a.ResponseAfterStartMs
	if res.Status != 0 {
		pm.ProbeResponseKeepalive = ptr(res.ConnHeader != "close")
	}
	pm.ProbeSocketClosedAfterSignalMs = a.SocketClosedAfterSignalMs
	pm.ProbeSocketClosedAfterResponseMs = a.SocketClosedAfterResponseMs
	pm.ProbeServerClosed = res.ServerClosed()
	if res.Error != "" {
		return pm, []string{"probe: " + res.Error}
	}
	return pm, nil
}

func ptr[T any](v T) *T { return &v }
