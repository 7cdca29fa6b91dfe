package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/document"
)

// runCaddy runs a catalog scenario behind Caddy once per variant with a
// short load and returns its result; every run must be valid. The first
// call builds the Caddy image (minutes on a cold module cache; cached by
// the content of cmd/caddy's go.mod, go.sum and main.go afterwards).
func runCaddy(t *testing.T, name string, sets ...string) *report.Result {
	t.Helper()
	r := newRunner(t, append([]string{"runs=1"}, sets...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, find(t, name))
	if err != nil {
		t.Fatal(err)
	}
	if oc.Invalid != 0 || oc.Incomplete != 0 || oc.Runs == 0 {
		t.Fatalf("outcome %+v, want only valid runs", oc)
	}
	res, err := document.Rebuild(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.ProxyConfig, `"reverse_proxy"`) {
		t.Errorf("result carries no proxy configuration")
	}
	return res
}

func deref[T any](p *T) any {
	if p == nil {
		return "null"
	}
	return *p
}

// TestCaddyRetryNoneZeroFailedGETs: with Caddy retrying GETs (5 s, every
// 100 ms), rolling a replica that has no SIGTERM handler at all fails no GET
// (P11).
func TestCaddyRetryNoneZeroFailedGETs(t *testing.T) {
	res := runCaddy(t, "caddy-retry", "target.mode=none", "load.duration=4s", "action.at=2s", "observe.window=5s")
	m := res.Variants[0].Runs[0].Metrics
	t.Logf("requests=%d failed=%d p99=%v exit=%v", m.Requests, m.Failed, deref(m.P99Ms), deref(m.ExitCode))
	if m.Requests == 0 || m.Failed != 0 {
		t.Errorf("requests=%d failed=%d by_class=%v; want GETs and none failed", m.Requests, m.Failed, m.ByClass)
	}
	if m.ExitCode == nil {
		t.Errorf("replica A never exited; mode none should die on SIGTERM")
	}
}

// TestCaddyPostGhostWrites: POSTs that write first, behind the retrying
// rig: none or close show ghost writes or failures; full shows zero
// failures and zero ghost writes; no mode loses a write (P12).
func TestCaddyPostGhostWrites(t *testing.T) {
	res := runCaddy(t, "caddy-post", "baseline=false", "load.duration=4s", "action.at=2s", "observe.window=5s")
	broken := 0
	for _, v := range res.Variants {
		m := v.Runs[0].Metrics
		t.Logf("%s: writes=%v acked=%v ghost=%v clean=%v lost=%v unknown=%v failed=%d",
			v.Label, deref(m.Writes), deref(m.AckedWrites), deref(m.GhostWrites), deref(m.CleanFailures), deref(m.LostWrites), deref(m.UnknownWrites), m.Failed)
		if m.Writes == nil || *m.Writes == 0 {
			t.Fatalf("%s: no write records reconciled", v.Label)
		}
		if *m.LostWrites != 0 {
			t.Errorf("%s: %d lost writes (2xx but no ledger row)", v.Label, *m.LostWrites)
		}
		switch {
		case strings.Contains(v.Label, "full"):
			if m.Failed != 0 || *m.GhostWrites != 0 {
				t.Errorf("full: failed=%d ghost_writes=%d, want 0 and 0", m.Failed, *m.GhostWrites)
			}
		default:
			if *m.GhostWrites > 0 || m.Failed > 0 {
				broken++
			}
		}
	}
	if broken == 0 {
		t.Errorf("neither none nor close showed ghost writes or failures")
	}
}

// TestRollBehindCaddy: full exits within its pre-stop wait plus its drain,
// with nothing dropped. The published P4 close figure (NEVER within 25 s)
// is Node's server.close() kept alive by Caddy's busy upstream
// connections; the Go target's stock http.Server.Shutdown answers
// Connection: close and exits once in-flight requests end, well before the
// pre-stop wait a full-mode replica would take — and without failing
// readiness first, so the clients see the errors full avoids. The test
// asserts that, as measured, rather than the Node figure.
func TestRollBehindCaddy(t *testing.T) {
	// P4 as published (Node): close never exits while Caddy keeps its
	// keep-alive connections busy; full exits within pre-stop + drain.
	const prestop, drainMax = 2000.0, 10000.0 // roll-behind-caddy's PRESTOP_MS, DRAIN_MS
	res := runCaddy(t, "roll-behind-caddy", "target.runtime=node", "load.duration=5s", "action.at=2s", "observe.window=8s")
	for _, v := range res.Variants {
		m := v.Runs[0].Metrics
		t.Logf("%s: exit=%v after %v ms, drain=%v, failed=%d dropped_inflight=%v",
			v.Label, deref(m.ExitCode), deref(m.ExitAfterMs), deref(m.DrainMs), m.Failed, deref(m.DroppedInflight))
		switch {
		case strings.Contains(v.Label, "full"):
			if m.ExitCode == nil || *m.ExitCode != 0 || m.DrainMs == nil {
				t.Fatalf("full: exit %v drain %v; want exit 0 with a drain time", deref(m.ExitCode), deref(m.DrainMs))
			}
			if *m.ExitAfterMs < prestop || *m.ExitAfterMs > prestop+drainMax || *m.DrainMs < prestop {
				t.Errorf("full: exit after %.0f ms, drained in %.0f ms; want within [%v, %v] ms and drain >= pre-stop",
					*m.ExitAfterMs, *m.DrainMs, prestop, prestop+drainMax)
			}
			// No retries here: P10 (published and measured) has residual
			// 502/503s in every mode, even full, so "0 failed" would be a
			// flaky gate (1 failure in 1 of 3 fresh-clone runs). What full
			// must hold is that no in-flight request is dropped and that the
			// residue stays a residue, not a collapse.
			if *m.DroppedInflight != 0 {
				t.Errorf("full: dropped_inflight %d, want 0", *m.DroppedInflight)
			}
			if m.Failed*10 > m.Requests {
				t.Errorf("full: %d of %d requests failed; want the P10 residue (< 10%%)", m.Failed, m.Requests)
			}
		case strings.Contains(v.Label, "close"):
			if m.ExitCode != nil {
				t.Errorf("close (node): exited %d after %.0f ms; want NEVER within the 8 s window (server.close() waits for Caddy's keep-alive connections)",
					*m.ExitCode, deref(m.ExitAfterMs))
			}
		}
	}
}
