package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// The tests in this file measure a stock third-party server, Debian's
// nginx (images.StockFixture "nginx": no code of ours inside), whose shutdown is
// documented (https://nginx.org/en/docs/control.html): TERM is a fast
// shutdown that drops in-flight requests, QUIT a graceful one that
// finishes them. The harness must report exactly that, at two action
// phases half a request period apart, so a false pass (dropped_inflight 0
// for a TERM, as once reported) cannot come back unnoticed.

// nginxClients is the closed-loop client count; each keeps one 300 ms
// request in flight nearly all the time.
const nginxClients = 20

// nginxScenario is a direct-topology scenario against the nginx fixture:
// 20 keep-alive clients on GET /slow?ms=300 for 4 s, the action (YAML
// lines under "action:") at 2 s and at 2.15 s (half a request apart).
const nginxScenario = `name: nginx-%s
description: Stock nginx fixture, %s, at two phases.
runs: 1
target:
  image: %s
  protocol: {port: 8080, ready_path: /readyz, paths: [/slow]}
replicas: 1
load:
  shape: closed
  clients: %d
  duration: 4s
  timeout: 30s
  mix:
    - {method: GET, path: "/slow?ms=300", weight: 1}
action:
%s
observe:
  window: 10s
variants:
  action.at: [2s, 2150ms]
`

// nginxPhase is one measured run of an nginx case.
type nginxPhase struct {
	label string
	m     report.Metrics
	// action is how the action went, as the runner recorded it.
	action record.Action
	// completed counts ok requests open at the action (started before T0)
	// that ended at or after T1, once nginx had the signal: in-flight
	// requests the shutdown let finish.
	completed int
}

// nginxRef builds (or reuses) the nginx fixture image. A host without
// nginx fails the test with the apt-get command that installs it.
func nginxRef(t *testing.T, r *runner.Runner) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log bytes.Buffer
	ref, _, err := images.StockFixture(ctx, r.Engine(), "nginx", &log)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", ref, strings.TrimSpace(log.String()))
	return ref
}

// runNginx runs the nginx scenario for one action once per phase and
// returns the runs, each of which must be valid with counts that add up.
func runNginx(t *testing.T, name, action string) []nginxPhase {
	t.Helper()
	r := newRunner(t)
	ref := nginxRef(t, r)
	file := filepath.Join(t.TempDir(), "nginx-"+name+".yaml")
	text := fmt.Sprintf(nginxScenario, name, name, ref, nginxClients, action)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load(file)
	if err != nil {
		t.Fatalf("scenario:\n%s\n%v", text, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, sc)
	if err != nil {
		t.Fatal(err)
	}
	keepOnFailure(t, oc.Dir)
	if oc.Runs != 2 || oc.Invalid != 0 || oc.Incomplete != 0 {
		t.Fatalf("outcome %+v, want 2 valid runs", oc)
	}
	res, err := report.Load(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []nginxPhase
	for _, v := range res.Variants {
		if len(v.Runs) != 1 || !v.Runs[0].Valid {
			t.Fatalf("%s: runs %+v", v.Label, v.Runs)
		}
		run := v.Runs[0]
		p := nginxPhase{label: v.Label, m: run.Metrics}
		p.completed = completedInflight(t, filepath.Join(oc.Dir, v.Slug, run.Name))
		if run.Meta.Action != nil {
			p.action = *run.Meta.Action
		}
		logNginx(t, name, p)
		checkNginxCommon(t, name, p)
		out = append(out, p)
	}
	if len(out) != 2 {
		t.Fatalf("%d variants, want 2 (action.at 2s and 2.15s)", len(out))
	}
	return out
}

// keepOnFailure copies a result directory (records, events.json, nginx's
// log) out of the test's temp dir when the test fails, and says where.
func keepOnFailure(t *testing.T, dir string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		dst, err := os.MkdirTemp("", "shutdownlab-"+t.Name()+"-")
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
	w, ok := report.DeliveryWindow(meta)
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

func logNginx(t *testing.T, name string, p nginxPhase) {
	t.Helper()
	m := p.m
	t.Logf("nginx %s %s: requests=%d failed=%d inflight_at_action=%v dropped_inflight=%v failed_in_delivery_window=%v "+
		"idle_close_race=%v failed_after_signal=%v served_after_signal=%v failed_while_running=%v completed_inflight=%d "+
		"exit=%v after %v ms killed=%v signal_ref=%s window=%v ms by_class=%v; action call %v ms, engine kill events %d (after %s) %s",
		name, p.label, m.Requests, m.Failed, deref(m.InflightAtAction), deref(m.DroppedInflight), deref(m.FailedInDeliveryWindow),
		deref(m.IdleCloseRace), deref(m.FailedAfterSignal), deref(m.ServedAfterSignal), deref(m.FailedWhileRunning), p.completed,
		deref(m.ExitCode), deref(m.ExitAfterMs), m.Killed, m.SignalRef, deref(m.DeliveryWindowMs), m.ByClass,
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

// checkNginxCommon: load ran, counts add up (every failed request in
// exactly one phase), the phase metrics exist, at most one request per
// client was open at the action, and nginx exited 0 by itself (TERM and
// QUIT both end in exit 0; docker stop's 5 s grace is never used up).
func checkNginxCommon(t *testing.T, name string, p nginxPhase) {
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
	if *m.InflightAtAction > nginxClients {
		t.Errorf("%s %s: inflight_at_action %d > %d clients", name, p.label, *m.InflightAtAction, nginxClients)
	}
	if m.ExitCode == nil || *m.ExitCode != 0 || m.Killed {
		t.Errorf("%s %s: exit %v killed %v; want nginx to exit 0 by itself", name, p.label, deref(m.ExitCode), m.Killed)
	}
}

// attributableWindowMs bounds the delivery window (T1 - T0: from sending
// the action to the latest moment the signal can have reached nginx) within
// which the phases are told apart for these assertions. A client finishes
// its 300 ms request inside the window with a chance of window/300 ms and
// writes its next one there, so with a window under a third of a request
// most of the 20 requests open at T0 are still open when nginx gets the
// signal. On a loaded machine the engine sometimes takes far longer to
// deliver a signal (once 964 ms for a docker kill): the requests open at
// T0 then end normally, the ones dropped were written inside the window,
// and the harness rightly counts them as failed_in_delivery_window, not
// dropped_inflight. Such a run is checked on the sum only, and says so.
const attributableWindowMs = 100

// attributable reports whether p's delivery window is short enough to
// assert on the phases, logging why not when it is not.
func attributable(t *testing.T, name string, p nginxPhase) bool {
	t.Helper()
	if w := *p.m.DeliveryWindowMs; w > attributableWindowMs {
		t.Logf("%s %s: delivery window %.0f ms > %d ms (the engine was slow to deliver the signal): phases not asserted, only their sum",
			name, p.label, w, attributableWindowMs)
		return false
	}
	return true
}

// checkFastShutdown asserts nginx's documented fast shutdown: the
// requests in flight when the signal arrives are dropped. Nearly every
// client has one in flight at any time, so at least half the clients'
// requests fail among those written before T1, and, with a short delivery
// window, among those already open at T0 (dropped_inflight; the false pass
// once reported was 0 here).
func checkFastShutdown(t *testing.T, name string, p nginxPhase) {
	t.Helper()
	m := p.m
	if lost := *m.DroppedInflight + *m.FailedInDeliveryWindow; lost < nginxClients/2 {
		t.Errorf("%s %s: dropped_inflight %d + failed_in_delivery_window %d = %d, want >= %d (fast shutdown drops in-flight requests)",
			name, p.label, *m.DroppedInflight, *m.FailedInDeliveryWindow, lost, nginxClients/2)
	}
	if attributable(t, name, p) && *m.DroppedInflight < nginxClients/2 {
		t.Errorf("%s %s: dropped_inflight %d, want >= %d (fast shutdown drops in-flight requests; delivery window %.0f ms)",
			name, p.label, *m.DroppedInflight, nginxClients/2, *m.DeliveryWindowMs)
	}
}

// TestNginxTermDropsInflight: SIGTERM is nginx's fast shutdown.
func TestNginxTermDropsInflight(t *testing.T) {
	for _, p := range runNginx(t, "sigterm", "  kind: signal\n  signal: SIGTERM") {
		checkFastShutdown(t, "SIGTERM", p)
	}
}

// TestNginxDockerStopDropsInflight: docker stop sends the image's stop
// signal, SIGTERM (the fixture, like Debian's nginx, sets no STOPSIGNAL;
// the official nginx image sets SIGQUIT): a fast shutdown. This is the
// case once reported as dropped_inflight 0, a false pass.
func TestNginxDockerStopDropsInflight(t *testing.T) {
	for _, p := range runNginx(t, "stop", "  kind: stop\n  timeout: 5s") {
		checkFastShutdown(t, "docker stop", p)
	}
}

// TestNginxQuitFinishesInflight: SIGQUIT is nginx's graceful shutdown; no
// in-flight request is dropped, and (with a short delivery window) some of
// those open at the action finish ok after nginx surely had the signal.
// Requiring most clients to be in flight at the action keeps "0 dropped"
// from passing vacuously.
func TestNginxQuitFinishesInflight(t *testing.T) {
	for _, p := range runNginx(t, "sigquit", "  kind: signal\n  signal: SIGQUIT") {
		m := p.m
		if *m.DroppedInflight != 0 || *m.InflightAtAction < nginxClients/2 {
			t.Errorf("SIGQUIT %s: dropped_inflight %d of inflight_at_action %d, want 0 of >= %d (graceful shutdown)",
				p.label, *m.DroppedInflight, *m.InflightAtAction, nginxClients/2)
		}
		if attributable(t, "SIGQUIT", p) && p.completed == 0 {
			t.Errorf("SIGQUIT %s: no request open at the action finished ok after the signal (delivery window %.0f ms)",
				p.label, *m.DeliveryWindowMs)
		}
	}
}
