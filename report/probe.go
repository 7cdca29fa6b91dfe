package report

import (
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// ProbeMetrics are the metrics of a run driven by a raw-socket probe
// (Meta.LoadKind record.LoadKindProbe), computed by
// record.ProbeResult.Analyze against shutdown.SignalTime.
// They are embedded in Metrics: absent from the JSON of agent runs, and
// present (null when there is nothing to measure) in probe runs.
type ProbeMetrics struct {
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

// computeProbe fills the probe metrics of a probe run. Whether the run
// accounts for itself (exactly one probe line) is checkAccounting's
// question.
func computeProbe(m *Metrics, meta record.Meta) {
	if meta.LoadKind != record.LoadKindProbe && meta.Probe == nil {
		return
	}
	m.ProbeMetrics = &ProbeMetrics{}
	res := meta.Probe
	if res == nil || res.Type != record.TypeProbe {
		return
	}
	t, _ := shutdown.SignalTime(meta)
	a := res.Analyze(t)
	pm := m.ProbeMetrics
	pm.ProbeResponseAfterSignalMs = a.ResponseAfterSignalMs
	pm.ProbeResponseAfterStartMs = a.ResponseAfterStartMs
	if res.Status != 0 {
		pm.ProbeResponseKeepalive = ptr(res.ConnHeader != "close")
	}
	pm.ProbeSocketClosedAfterSignalMs = a.SocketClosedAfterSignalMs
	pm.ProbeSocketClosedAfterResponseMs = a.SocketClosedAfterResponseMs
	pm.ProbeServerClosed = res.ServerClosed()
	if res.Error != "" {
		m.Notes = append(m.Notes, "probe: "+res.Error)
	}
}

// isProbeRun is the presence test of the probe metric rows.
func isProbeRun(m *Metrics) bool { return m.ProbeMetrics != nil }

// probeDefs are the probe metric rows, shown only when some run is a probe
// run (whatever their values: a socket never closed is a NEVER worth a row).
var probeDefs = []MetricDef{
	{Name: "probe_response_after_signal_ms", Kind: KindMs, Null: "n/a", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: response end minus the signal time t",
		get: func(m *Metrics) Value {
			return probeFloat(m, func(p *ProbeMetrics) *float64 { return p.ProbeResponseAfterSignalMs })
		}},
	{Name: "probe_response_after_start_ms", Kind: KindMs, Null: "n/a", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: response end minus the probe's load start",
		get: func(m *Metrics) Value {
			return probeFloat(m, func(p *ProbeMetrics) *float64 { return p.ProbeResponseAfterStartMs })
		}},
	{Name: "probe_response_keepalive", Kind: KindBool, Null: "no response", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: the response's Connection header was not close",
		get: func(m *Metrics) Value {
			if m.ProbeMetrics == nil || m.ProbeResponseKeepalive == nil {
				return Value{Null: true}
			}
			return boolV(*m.ProbeResponseKeepalive)
		}},
	{Name: "probe_socket_closed_after_signal_ms", Kind: KindMs, Null: "NEVER", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: socket closed by the server minus t (NEVER: not within max_wait)",
		get: func(m *Metrics) Value {
			return probeFloat(m, func(p *ProbeMetrics) *float64 { return p.ProbeSocketClosedAfterSignalMs })
		}},
	{Name: "probe_socket_closed_after_response_ms", Kind: KindMs, Null: "NEVER", Optional: NeedsProbe, present: isProbeRun, Doc: "probe: socket closed minus response end (idle time)",
		get: func(m *Metrics) Value {
			return probeFloat(m, func(p *ProbeMetrics) *float64 { return p.ProbeSocketClosedAfterResponseMs })
		}},
	{Name: "probe_server_closed", Kind: KindBool, Optional: NeedsProbe, present: isProbeRun, Doc: "probe: the server ended the socket (eof or reset)",
		get: func(m *Metrics) Value {
			if m.ProbeMetrics == nil {
				return Value{Null: true}
			}
			return boolV(m.ProbeServerClosed)
		}},
}

func probeFloat(m *Metrics, f func(*ProbeMetrics) *float64) Value {
	if m.ProbeMetrics == nil {
		return Value{Null: true}
	}
	return floatP(f(m.ProbeMetrics))
}
