package runner_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// The assertions of TestStockZoo (stockzoo_integration_test.go), apart
// from the table and the runs.

// keepOnFailure copies a result directory (records, events.json, the
// server's log) out of the test's temp dir when the test fails, and says
// where.
func keepOnFailure(t *testing.T, dir string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		dst, err := os.MkdirTemp("", "shutdownlab-"+strings.ReplaceAll(t.Name(), "/", "-")+"-")
		if err == nil {
			err = os.CopyFS(dst, os.DirFS(dir))
		}
		t.Logf("result directory kept at %s (copy error: %v)", dst, err)
	})
}

// completedInflight counts, from a run's records, the ok requests started
// before the action was sent and ended once the signal had surely arrived.
func completedInflight(t *testing.T, runDir string) int {
	t.Helper()
	meta, reqs, err := report.LoadRun(runDir)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := shutdown.DeliveryWindow(meta)
	if !ok {
		t.Fatalf("%s: no action fired", runDir)
	}
	n := 0
	for _, q := range reqs {
		if q.Class == record.ClassOK && q.Start < w.T0 && q.End >= w.T1 {
			n++
		}
	}
	return n
}

// logZoo logs a run's phase metrics, exit and the engine's kill events.
func logZoo(t *testing.T, name string, p zooPhase) {
	t.Helper()
	m := p.m
	t.Logf("%s %s: requests=%d failed=%d inflight_at_action=%v dropped_inflight=%v failed_in_delivery_window=%v "+
		"idle_close_race=%v failed_after_signal=%v served_after_signal=%v failed_while_running=%v completed_inflight=%d "+
		"exit=%v after %v ms killed=%v signal_ref=%s window=%v ms p50_ok=%v ms drain_observed=%v ms by_class=%v; "+
		"action call %v ms, engine kill events %d (after %s) %s",
		name, p.label, m.Requests, m.Failed, deref(m.InflightAtAction), deref(m.DroppedInflight), deref(m.FailedInDeliveryWindow),
		deref(m.IdleCloseRace), deref(m.FailedAfterSignal), deref(m.ServedAfterSignal), deref(m.FailedWhileRunning), p.completed,
		deref(m.ExitCode), deref(m.ExitAfterMs), m.Killed, m.SignalRef, deref(m.DeliveryWindowMs),
		deref(m.P50Ms), deref(m.DrainObservedMs), m.ByClass,
		deref(m.ActionCallMs), len(p.action.Kills), killOffsets(p.action), p.action.KillsError)
}

// killOffsets lists the engine's kill events relative to the send time
// ("15@+12.3ms").
func killOffsets(a record.Action) string {
	var parts []string
	for _, k := range a.Kills {
		parts = append(parts, fmt.Sprintf("%d@%+.1fms", k.Signal, float64(k.TimeNs-a.SentNs)/1e6))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// checkZooCommon: load ran, counts add up (every failed request in exactly
// one phase), the phase metrics exist, at most one request per client was
// open at the action, and the server exited by itself with exit code exit
// (docker stop's 5 s grace is never used up).
func checkZooCommon(t *testing.T, name string, p zooPhase, exit int) {
	t.Helper()
	m := p.m
	if m.Requests == 0 || !m.AccountingOK {
		t.Errorf("%s %s: requests %d accounting_ok %v", name, p.label, m.Requests, m.AccountingOK)
	}
	if m.DroppedInflight == nil || m.InflightAtAction == nil || m.FailedInDeliveryWindow == nil || m.FailedBeforeSignal == nil ||
		m.FailedAfterSignal == nil || m.IdleCloseRace == nil || m.ServedAfterSignal == nil || m.FailedWhileRunning == nil ||
		m.DeliveryWindowMs == nil {
		t.Fatalf("%s %s: phase metrics missing: %+v", name, p.label, m)
	}
	if sum := *m.FailedBeforeSignal + *m.DroppedInflight + *m.FailedInDeliveryWindow + *m.FailedAfterSignal; sum != m.Failed {
		t.Errorf("%s %s: failed_before_signal + dropped_inflight + failed_in_delivery_window + failed_after_signal = %d, failed = %d",
			name, p.label, sum, m.Failed)
	}
	if *m.InflightAtAction > zooClients {
		t.Errorf("%s %s: inflight_at_action %d > %d clients", name, p.label, *m.InflightAtAction, zooClients)
	}
	if m.ExitCode == nil || *m.ExitCode != exit || m.Killed {
		t.Errorf("%s %s: exit %v killed %v; want the server to exit %d by itself", name, p.label, deref(m.ExitCode), m.Killed, exit)
	}
}

// attributableWindowMs bounds the delivery window (T1 - T0: from sending
// the action to the latest moment the signal can have reached the server)
// within which the phases are told apart for these assertions. A client
// finishes its 300 ms request inside the window with a chance of
// window/300 ms and writes its next one there, so with a window under a
// third of a request most of the 20 requests open at T0 are still open when
// the server gets the signal. On a loaded machine the engine sometimes
// takes far longer to deliver a signal (once 964 ms for a docker kill): the
// requests open at T0 then end normally, the ones dropped were written
// inside the window, and the harness rightly counts them as
// failed_in_delivery_window, not dropped_inflight. Such a run is checked on
// the sum only, and says so.
const attributableWindowMs = 100

// attributable reports whether p's delivery window is short enough to
// assert on the phases, logging why not when it is not.
func attributable(t *testing.T, name string, p zooPhase) bool {
	t.Helper()
	if w := *p.m.DeliveryWindowMs; w > attributableWindowMs {
		t.Logf("%s %s: delivery window %.0f ms > %d ms (the engine was slow to deliver the signal): phases not asserted, only their sum",
			name, p.label, w, attributableWindowMs)
		return false
	}
	return true
}

// checkFastStop asserts a documented fast stop: the requests in flight
// when the signal arrives are dropped. Nearly every client has one in
// flight at any time, so at least half the clients' requests fail among
// those written before T1, and, with a short delivery window, among those
// already open at T0 (dropped_inflight; the false pass once reported for
// nginx was 0 here).
func checkFastStop(t *testing.T, name string, p zooPhase) {
	t.Helper()
	m := p.m
	if lost := *m.DroppedInflight + *m.FailedInDeliveryWindow; lost < zooClients/2 {
		t.Errorf("%s %s: dropped_inflight %d + failed_in_delivery_window %d = %d, want >= %d (a fast stop drops in-flight requests)",
			name, p.label, *m.DroppedInflight, *m.FailedInDeliveryWindow, lost, zooClients/2)
	}
	if attributable(t, name, p) && *m.DroppedInflight < zooClients/2 {
		t.Errorf("%s %s: dropped_inflight %d, want >= %d (a fast stop drops in-flight requests; delivery window %.0f ms)",
			name, p.label, *m.DroppedInflight, zooClients/2, *m.DeliveryWindowMs)
	}
}

// checkGracefulStop asserts a documented graceful stop: no in-flight
// request is dropped, and (with a short delivery window) some of those
// open at the action finish ok after the server surely had the signal.
// Requiring most clients to be in flight at the action keeps "0 dropped"
// from passing vacuously.
func checkGracefulStop(t *testing.T, name string, p zooPhase) {
	t.Helper()
	m := p.m
	if *m.DroppedInflight != 0 || *m.InflightAtAction < zooClients/2 {
		t.Errorf("%s %s: dropped_inflight %d of inflight_at_action %d, want 0 of >= %d (a graceful stop finishes them)",
			name, p.label, *m.DroppedInflight, *m.InflightAtAction, zooClients/2)
	}
	if attributable(t, name, p) && p.completed == 0 {
		t.Errorf("%s %s: no request open at the action finished ok after the signal (delivery window %.0f ms)",
			name, p.label, *m.DeliveryWindowMs)
	}
}
