package runner_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities/probe"
	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/document"
)

// runOne runs a catalog scenario with sets and returns its only run,
// which must be valid.
func runOne(t *testing.T, r *runner.Runner, name string) report.Run {
	t.Helper()
	run, _ := runOneIn(t, r, name)
	return run
}

// runOneIn is runOne, also returning the run's directory.
func runOneIn(t *testing.T, r *runner.Runner, name string) (report.Run, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, find(t, name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := document.Rebuild(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if oc.Runs != 1 || len(res.Variants) != 1 || len(res.Variants[0].Runs) != 1 {
		t.Fatalf("outcome %+v, want exactly one run", oc)
	}
	run := res.Variants[0].Runs[0]
	if !run.Valid {
		t.Fatalf("run invalid: %s", run.Reason)
	}
	return run, filepath.Join(oc.Dir, res.Variants[0].Slug, run.Name)
}

// TestProbeIdleSocketNode is P5 on the Node target: mode close, one idle
// keep-alive socket, SIGTERM 2 s into the idle period. Node's close()
// sweeps idle sockets once, so the server ends the socket shortly after
// the signal.
func TestProbeIdleSocketNode(t *testing.T) {
	r := newRunner(t, "runs=1", "target.runtime=node")
	run := runOne(t, r, "p5-idle-socket")
	m := run.Metrics
	pm := probe.Of(&m)
	if pm == nil {
		t.Fatalf("no probe metrics: %+v", m)
	}
	if run.Meta.LoadKind != record.LoadKindProbe || run.Meta.Probe() == nil {
		t.Errorf("meta load_kind %q, probe line %+v", run.Meta.LoadKind, run.Meta.Probe())
	}
	if c := pm.ProbeSocketClosedAfterSignalMs; c == nil || *c >= 1000 || !pm.ProbeServerClosed {
		t.Errorf("probe_socket_closed_after_signal_ms %v, server closed %v: want < 1000 ms, closed by the server",
			fmtP(c), pm.ProbeServerClosed)
	} else {
		t.Logf("idle socket closed %.1f ms after the signal (published: ~1 ms)", *c)
	}
}

// TestShellFormSignalNotHandled: behind `/bin/sh -c` as PID 1 (no --init),
// the shell gets the SIGTERM and does not forward it, so the app (mode full,
// which logs a signal event when it gets one) never sees it.
func TestShellFormSignalNotHandled(t *testing.T) {
	r := newRunner(t, "runs=1", "target.entrypoint=shell", "target.init=false", "load.duration=3s", "observe.window=3s")
	run := runOne(t, r, "signal-delivery")
	m := run.Metrics
	if m.SignalHandled == nil || *m.SignalHandled {
		t.Errorf("signal_handled %v behind a shell; want false (measured: the app logs its lifecycle)", m.SignalHandled)
	}
	if m.ExitCode != nil && !m.Killed {
		t.Errorf("exit code %d; want NEVER (or killed)", *m.ExitCode)
	}
	if rt := run.Meta.Replicas[0].Runtime; rt == "" {
		t.Errorf("replica runtime label empty")
	}
}

// TestImageFlagDirectInflight runs direct-inflight (MODE=full, set as a user
// sets an image's variable: the harness sets none for an image) against the
// built Go target given as a user image (--image = --set target.image), so
// the path that measures any image works end to end.
func TestImageFlagDirectInflight(t *testing.T) {
	r := newRunner(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ref, _, err := images.BuildProject(ctx, r.Engine(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	r2 := newRunner(t, "runs=1", "target.env.MODE=full", "load.duration=3s", "action.at=1500ms", "observe.window=5s",
		"target.image="+ref, "target.protocol.paths=/slow")
	run := runOne(t, r2, "direct-inflight")
	m := run.Metrics
	if img := run.Meta.Replicas[0].Image; img != ref {
		t.Errorf("replica image %s, want %s", img, ref)
	}
	if m.Requests == 0 || m.DroppedInflight == nil || *m.DroppedInflight != 0 || m.ExitCode == nil || *m.ExitCode != 0 {
		t.Errorf("requests %d dropped %v exit %v; want load, 0 dropped, exit 0", m.Requests, fmtIP(m.DroppedInflight), fmtIP(m.ExitCode))
	}
}

func fmtP(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}

func fmtIP(p *int) any {
	if p == nil {
		return "null"
	}
	return *p
}
