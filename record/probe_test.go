package record

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestProbeAnalyze(t *testing.T) {
	const s = int64(1_000_000_000_000) // an arbitrary signal time
	ms := int64(1_000_000)
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name   string
		r      ProbeResult
		signal int64
		want   ProbeAnalysis
	}{
		{"P5 idle closed 1 ms after the signal",
			ProbeResult{Kind: ProbeIdle, Status: 200, ConnHeader: "keep-alive", ResponseEndNs: s - 2000*ms, LoadStartNs: s - 2000*ms, SocketClosedNs: s + ms, Closed: ProbeClosedEOF},
			s, ProbeAnalysis{Kind: ProbeIdle, SignalAfterStartMs: f(2000), ResponseAfterSignalMs: f(-2000), ResponseAfterStartMs: f(0), ResponseStatus: 200, ResponseConnHeader: "keep-alive",
				SocketClosedAfterSignalMs: f(1), SocketClosedAfterStartMs: f(2001), SocketClosedAfterResponseMs: f(2001), ClosedBy: "eof"}},
		{"P6 inflight keep-alive, closed 6 s after the response",
			ProbeResult{Kind: ProbeInflight, Status: 200, ConnHeader: "keep-alive", WrittenNs: s - 1000*ms, LoadStartNs: s - 1000*ms, ResponseEndNs: s + 3010*ms, SocketClosedNs: s + 9018*ms, Closed: ProbeClosedEOF},
			s, ProbeAnalysis{Kind: ProbeInflight, SignalAfterStartMs: f(1000), ResponseAfterSignalMs: f(3010), ResponseAfterStartMs: f(4010), ResponseStatus: 200, ResponseConnHeader: "keep-alive",
				SocketClosedAfterSignalMs: f(9018), SocketClosedAfterStartMs: f(10018), SocketClosedAfterResponseMs: f(6008), ClosedBy: "eof"}},
		{"reset",
			ProbeResult{Kind: ProbeIdle, Status: 200, ResponseEndNs: s - 10*ms, LoadStartNs: s - 10*ms, SocketClosedNs: s + 5*ms, Closed: ProbeClosedReset},
			s, ProbeAnalysis{Kind: ProbeIdle, SignalAfterStartMs: f(10), ResponseAfterSignalMs: f(-10), ResponseAfterStartMs: f(0), ResponseStatus: 200,
				SocketClosedAfterSignalMs: f(5), SocketClosedAfterStartMs: f(15), SocketClosedAfterResponseMs: f(15), ClosedBy: "reset"}},
		{"never closed within max-wait",
			ProbeResult{Kind: ProbeIdle, Status: 200, ResponseEndNs: s - 10*ms, LoadStartNs: s - 10*ms, Closed: ProbeClosedTimeout},
			s, ProbeAnalysis{Kind: ProbeIdle, SignalAfterStartMs: f(10), ResponseAfterSignalMs: f(-10), ResponseAfterStartMs: f(0), ResponseStatus: 200, ClosedBy: "never"}},
		{"probe stopped first",
			ProbeResult{Kind: ProbeIdle, Status: 200, ResponseEndNs: s - 10*ms, LoadStartNs: s - 10*ms, Closed: ProbeClosedStopped},
			s, ProbeAnalysis{Kind: ProbeIdle, SignalAfterStartMs: f(10), ResponseAfterSignalMs: f(-10), ResponseAfterStartMs: f(0), ResponseStatus: 200, ClosedBy: "never"}},
		{"closed before the signal is negative",
			ProbeResult{Kind: ProbeIdle, Status: 200, ResponseEndNs: s - 10*ms, LoadStartNs: s - 10*ms, SocketClosedNs: s - 4*ms, Closed: ProbeClosedEOF},
			s, ProbeAnalysis{Kind: ProbeIdle, SignalAfterStartMs: f(10), ResponseAfterSignalMs: f(-10), ResponseAfterStartMs: f(0), ResponseStatus: 200,
				SocketClosedAfterSignalMs: f(-4), SocketClosedAfterStartMs: f(6), SocketClosedAfterResponseMs: f(6), ClosedBy: "eof"}},
		{"signal unknown: nothing relative to it",
			ProbeResult{Kind: ProbeIdle, Status: 200, ResponseEndNs: s, LoadStartNs: s, SocketClosedNs: s + 3*ms, Closed: ProbeClosedEOF},
			0, ProbeAnalysis{Kind: ProbeIdle, ResponseAfterStartMs: f(0), ResponseStatus: 200, SocketClosedAfterStartMs: f(3), SocketClosedAfterResponseMs: f(3), ClosedBy: "eof"}},
		{"inflight reset mid-request: no response",
			ProbeResult{Kind: ProbeInflight, WrittenNs: s - 1000*ms, LoadStartNs: s - 1000*ms, SocketClosedNs: s + 300*ms, Closed: ProbeClosedReset},
			s, ProbeAnalysis{Kind: ProbeInflight, SignalAfterStartMs: f(1000), SocketClosedAfterSignalMs: f(300), SocketClosedAfterStartMs: f(1300), ClosedBy: "reset"}},
		{"dial failed",
			ProbeResult{Kind: ProbeInflight},
			s, ProbeAnalysis{Kind: ProbeInflight, ClosedBy: "never"}},
		{"closed kind without a time is never",
			ProbeResult{Kind: ProbeIdle, Closed: ProbeClosedEOF},
			s, ProbeAnalysis{Kind: ProbeIdle, ClosedBy: "never"}},
	}
	for _, tt := range tests {
		got, _ := json.Marshal(tt.r.Analyze(tt.signal))
		want, _ := json.Marshal(tt.want)
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, want)
		}
	}
}

// Null analysis fields are JSON null, not absent.
func TestProbeAnalysisNulls(t *testing.T) {
	b, _ := json.Marshal((&ProbeResult{Kind: ProbeIdle}).Analyze(0))
	for _, k := range []string{`"socket_closed_after_signal_ms":null`, `"response_after_signal_ms":null`, `"closed_by":"never"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("%s lacks %s", b, k)
		}
	}
}
