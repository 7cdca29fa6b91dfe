package runner_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/resources"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/document"
)

// TestHostileSlowClientsHoldClose is C3 on the Go target in close mode:
// one client trickles its request at 1 byte/s and docker stop -t 8 comes
// 2 s into the load. What Go's stock Shutdown does, as measured:
//   - slow_headers: the connection has not finished its first request's
//     headers (StateNew), and Shutdown closes such a connection once it is
//     over 5 s old: the target exits 0 by itself 3-4.5 s after the stop,
//     the client seeing its connection closed a few bytes in;
//   - slow_body: the headers are in, the connection is serving a request,
//     and Shutdown waits for it: only the grace period's SIGKILL ends the
//     target (137, 8 s after the stop), the client still trickling.
func TestHostileSlowClientsHoldClose(t *testing.T) {
	r := newRunner(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, find(t, "testdata/hostile/slow-headers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := document.Rebuild(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		code             int
		killed           bool
		exitLo, exitHi   float64 // ms after the stop
		bytesLo, bytesHi int64
	}{
		"kind=slow_headers": {code: 0, exitLo: 2900, exitHi: 5000, bytesLo: 4, bytesHi: 8},
		"kind=slow_body":    {code: 137, killed: true, exitLo: 8000, exitHi: 9000, bytesLo: 100, bytesHi: 200},
	}
	if len(res.Variants) != len(want) {
		t.Fatalf("%d variants, want %d", len(res.Variants), len(want))
	}
	for _, v := range res.Variants {
		w, ok := want[v.Label]
		if !ok || len(v.Runs) != 1 || !v.Runs[0].Valid {
			t.Fatalf("variant %s: runs %+v, want one valid run of a known variant", v.Label, v.Runs)
		}
		run := v.Runs[0]
		m := run.Metrics
		meta, reqs, err := report.LoadRun(filepath.Join(oc.Dir, v.Slug, run.Name))
		if err != nil {
			t.Fatal(err)
		}
		if meta.LoadKind != record.LoadKindHostile || len(reqs) != 1 {
			t.Fatalf("%s: load_kind %q, %d request records; want hostile, the one attempt", v.Label, meta.LoadKind, len(reqs))
		}
		q := reqs[0]
		exitNs := meta.Replicas[0].ExitedNs
		t.Logf("%s: exit %v after %v ms; attempt %s, %d bytes sent, ended %.0f ms after the stop (%q)", v.Label,
			fmtIP(m.ExitCode), fmtP(m.ExitAfterMs), q.Class, q.SentBytes, float64(q.End-meta.Action.SentNs)/1e6, q.Error)
		if m.ExitCode == nil || *m.ExitCode != w.code || m.Killed != w.killed || m.ExitAfterMs == nil ||
			*m.ExitAfterMs < w.exitLo || *m.ExitAfterMs > w.exitHi {
			t.Errorf("%s: exit %v after %v ms, killed %v; want %d after %.0f..%.0f ms", v.Label, fmtIP(m.ExitCode),
				fmtP(m.ExitAfterMs), m.Killed, w.code, w.exitLo, w.exitHi)
		}
		// The attempt got no answer, and ended with its connection: at the
		// target's exit (the socket closes a few ms before the engine's
		// FinishedAt), not before the stop.
		if q.Class == record.ClassOK || q.Status != 0 || q.SentBytes < w.bytesLo || q.SentBytes > w.bytesHi ||
			q.End < meta.Action.SentNs || q.End > exitNs+int64(time.Second) {
			t.Errorf("%s: attempt %+v: want no answer, %d..%d bytes sent, ended by the target's exit", v.Label, q, w.bytesLo, w.bytesHi)
		}
		if m.P50Ms != nil {
			t.Errorf("%s: p50_ms %v from a hostile attempt, want null", v.Label, *m.P50Ms)
		}
	}
}

// TestHostileAbortNoFDGrowth: 40 attempts that close their connection
// mid-body against the Go target, its process tree sampled throughout.
// Every attempt is aborted, and Go's server closes each connection when
// the client does: nothing accumulates, and the fd totals at load start
// and load end differ at most by the connections open at those two
// moments, at most 2 (load.hostile.clients) each: |fd_growth_per_abort|
// <= 2/40. (Measured: 0.025 and 0, one attempt in flight at one end.)
func TestHostileAbortNoFDGrowth(t *testing.T) {
	r := newRunner(t)
	run := runOne(t, r, "testdata/hostile/abort.yaml")
	m := run.Metrics
	if m.ByClass[string(record.ClassAborted)] != 40 || m.Requests != 40 {
		t.Fatalf("by_class %v of %d requests, want 40 aborted", m.ByClass, m.Requests)
	}
	rm := resources.Of(&m)
	if rm == nil || rm.FDGrowthPerAbort == nil || rm.FDsAtSignal == nil {
		t.Fatalf("resource metrics %+v: want fd_growth_per_abort and fds_at_signal", rm)
	}
	t.Logf("fd_growth_per_abort %.3f, fds_at_signal %d, peak_rss_bytes %v, threads_at_signal %v",
		*rm.FDGrowthPerAbort, *rm.FDsAtSignal, fmtIP(rm.PeakRSSBytes), fmtIP(rm.ThreadsAtSignal))
	if g := *rm.FDGrowthPerAbort; g < -2.0/40 || g > 2.0/40 {
		t.Errorf("fd_growth_per_abort %v, want within ±2/40 (Go closes an aborted connection; 2 attempts at most in flight)", g)
	}
}
