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
// nginx (images.NginxFixture: no code of ours inside), whose shutdown is
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
	ref, ver, err := images.NginxFixture(ctx, r.Engine(), &log)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (%s): %s", ref, ver, strings.TrimSpace(log.String()))
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
		logNginx(t, name, p)
		checkNginxCommon(t, name, p)
		out = append(out, p)
	}
	if len(out) != 2 {
		t.Fatalf("%d variants, want 2 (action.at 2s and 2.15s)", len(out))
	}
	return out
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
		"exit=%v after %v ms killed=%v signal_ref=%s window=%v ms by_class=%v",
		name, p.label, m.Requests, m.Failed, deref(m.InflightAtAction), deref(m.DroppedInflight), deref(m.FailedInDeliveryWindow),
		deref(m.IdleCloseRace), deref(m.FailedAfterSignal), deref(m.ServedAfterSignal), deref(m.FailedWhileRunning), p.completed,
		deref(m.ExitCode), deref(m.ExitAfterMs), m.Killed, m.SignalRef, deref(m.DeliveryWindowMs), m.ByClass)
}

// checkNginxCommon: load ran, counts add up, the phase metrics exist, at
// most one request per client was open at the action, and nginx exited 0
// by itself (TERM and QUIT both end in exit 0; docker stop's 5 s grace is
// never used up).
func checkNginxCommon(t *testing.T, name string, p nginxPhase) {
	t.Helper()
	m := p.m
	if m.Requests == 0 || !m.AccountingOK {
		t.Errorf("%s %s: requests %d accounting_ok %v", name, p.label, m.Requests, m.AccountingOK)
	}
	if m.DroppedInflight == nil || m.InflightAtAction == nil || m.FailedInDeliveryWindow == nil ||
		m.IdleCloseRace == nil || m.ServedAfterSignal == nil || m.FailedWhileRunning == nil {
		t.Fatalf("%s %s: phase metrics missing: %+v", name, p.label, m)
	}
	if *m.InflightAtAction > nginxClients {
		t.Errorf("%s %s: inflight_at_action %d > %d clients", name, p.label, *m.InflightAtAction, nginxClients)
	}
	if m.ExitCode == nil || *m.ExitCode != 0 || m.Killed {
		t.Errorf("%s %s: exit %v killed %v; want nginx to exit 0 by itself", name, p.label, deref(m.ExitCode), m.Killed)
	}
}

// TestNginxTermDropsInflight: SIGTERM is nginx's fast shutdown; nearly
// every client has a request in flight at the action, and they are
// dropped.
func TestNginxTermDropsInflight(t *testing.T) {
	for _, p := range runNginx(t, "sigterm", "  kind: signal\n  signal: SIGTERM") {
		if d := *p.m.DroppedInflight; d < nginxClients/2 {
			t.Errorf("SIGTERM %s: dropped_inflight %d, want >= %d (fast shutdown drops in-flight requests)", p.label, d, nginxClients/2)
		}
	}
}

// TestNginxQuitFinishesInflight: SIGQUIT is nginx's graceful shutdown;
// no in-flight request is dropped and those in flight finish ok after
// nginx has the signal. Requiring most clients to be in flight, and most
// of those to finish after the signal, keeps "0 dropped" from passing
// vacuously (nothing in flight, or everything finished before the
// signal arrived).
func TestNginxQuitFinishesInflight(t *testing.T) {
	for _, p := range runNginx(t, "sigquit", "  kind: signal\n  signal: SIGQUIT") {
		if d := *p.m.DroppedInflight; d != 0 {
			t.Errorf("SIGQUIT %s: dropped_inflight %d, want 0 (graceful shutdown)", p.label, d)
		}
		if n := *p.m.InflightAtAction; n < nginxClients/2 || p.completed < nginxClients/2 {
			t.Errorf("SIGQUIT %s: inflight_at_action %d, completed after the signal %d; want both >= %d",
				p.label, n, p.completed, nginxClients/2)
		}
	}
}

// TestNginxDockerStopDropsInflight: docker stop sends the image's stop
// signal, SIGTERM (the fixture, like Debian's nginx, sets no STOPSIGNAL;
// the official nginx image sets SIGQUIT): a fast shutdown. This is the
// case once reported as dropped_inflight 0 — a false pass.
func TestNginxDockerStopDropsInflight(t *testing.T) {
	for _, p := range runNginx(t, "stop", "  kind: stop\n  timeout: 5s") {
		if d := *p.m.DroppedInflight; d < nginxClients/2 {
			t.Errorf("docker stop %s: dropped_inflight %d, want >= %d (SIGTERM is nginx's fast shutdown)", p.label, d, nginxClients/2)
		}
	}
}
