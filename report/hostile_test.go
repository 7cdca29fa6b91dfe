package report

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// Requests of hostile clients count in requests, ok and by_class but stay
// out of the latency percentiles: their latency is the client's slowness.
func TestHostileOutOfLatency(t *testing.T) {
	req := func(ms int64, hostile string, c record.Class) record.Request {
		return record.Request{Type: record.TypeRequest, Start: 1e9, End: 1e9 + ms*1e6, Class: c, Hostile: hostile}
	}
	tests := []struct {
		name          string
		reqs          []record.Request
		ok            int
		p50, max      *float64
		abortedByKind int
	}{
		{name: "only hostile: no percentile", reqs: []record.Request{req(60000, record.HostileSlowBody, record.ClassOK)}, ok: 1},
		{name: "mixed: the ordinary one only", reqs: []record.Request{req(60000, record.HostileSlowHeaders, record.ClassOK), req(20, "", record.ClassOK)},
			ok: 2, p50: ptr(20.0), max: ptr(20.0)},
		{name: "aborted: counted, not failed", reqs: []record.Request{req(5, record.HostileAbort, record.ClassAborted), req(7, "", record.ClassOK)},
			ok: 1, p50: ptr(7.0), max: ptr(7.0), abortedByKind: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Compute(record.Meta{}, tt.reqs)
			checkP(t, "p50_ms", m.P50Ms, tt.p50)
			checkP(t, "max_ms", m.MaxMs, tt.max)
			if m.OK != tt.ok || m.Requests != len(tt.reqs) || m.Failed != 0 || m.ByClass[string(record.ClassAborted)] != tt.abortedByKind {
				t.Errorf("requests %d ok %d failed %d aborted %d; want %d, %d, 0, %d", m.Requests, m.OK, m.Failed,
					m.ByClass[string(record.ClassAborted)], len(tt.reqs), tt.ok, tt.abortedByKind)
			}
		})
	}
}

func checkP[T comparable](t *testing.T, name string, got, want *T) {
	t.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		t.Errorf("%s = %v, want %v", name, got, want)
	case *got != *want:
		t.Errorf("%s = %v, want %v", name, *got, *want)
	}
}
