package runner_test

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// TestHostileSlowHeadersHoldsClose is C3 on the Go target: one client
// trickles its headers at 1 byte/s and docker stop -t 3 comes 2 s into
// the load. Close mode (Go's stock Shutdown, no header timeout) waits for
// the trickling connection, so the target does not exit by itself: the
// grace period's SIGKILL ends it (137, ~3 s after the stop), and the
// client's one attempt, a few bytes into its headers, is cut off.
func TestHostileSlowHeadersHoldsClose(t *testing.T) {
	r := newRunner(t)
	run, dir := runOneIn(t, r, "testdata/hostile/slow-headers.yaml")
	m := run.Metrics
	if run.Meta.LoadKind != record.LoadKindHostile {
		t.Errorf("meta load_kind %q, want %q", run.Meta.LoadKind, record.LoadKindHostile)
	}
	if m.ExitCode == nil || *m.ExitCode != 137 || !m.Killed || m.ExitAfterMs == nil || *m.ExitAfterMs < 3000 || *m.ExitAfterMs > 4000 {
		t.Errorf("exit code %v after %v ms, killed %v: want 137 after 3000..4000 ms (the grace period's SIGKILL)",
			fmtIP(m.ExitCode), fmtP(m.ExitAfterMs), m.Killed)
	}
	meta, reqs, err := report.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 {
		t.Fatalf("%d request records, want the one attempt", len(reqs))
	}
	q := reqs[0]
	t.Logf("attempt: class %s after %.0f ms, %d bytes sent, error %q; replica exit %v after %v ms",
		q.Class, float64(q.LatencyNs())/1e6, q.SentBytes, q.Error, fmtIP(m.ExitCode), fmtP(m.ExitAfterMs))
	if q.Hostile != record.HostileSlowHeaders || q.Class == record.ClassOK || q.Status != 0 {
		t.Errorf("attempt %+v: want a slow_headers attempt cut off without an answer", q)
	}
	// It was still trickling when the SIGKILL came: about one byte a
	// second from the load start to the kill (2 s + 3 s), and it ended
	// with the process (the socket closes as it dies, a few ms before
	// the engine's FinishedAt), not before the grace period was over.
	kill := meta.Action.SentNs + 3e9
	if q.SentBytes < 3 || q.SentBytes > 8 || q.End < kill || q.End > meta.Replicas[0].ExitedNs+1e9 {
		t.Errorf("attempt sent %d bytes, ended %.0f ms after the stop (replica exited after %.0f ms): want 3..8 bytes, ended by the kill at 3000 ms",
			q.SentBytes, float64(q.End-meta.Action.SentNs)/1e6, float64(meta.Replicas[0].ExitedNs-meta.Action.SentNs)/1e6)
	}
	if m.P50Ms != nil {
		t.Errorf("p50_ms %v from a hostile attempt, want null", *m.P50Ms)
	}
}
