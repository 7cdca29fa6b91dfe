package runner_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/capabilities"
	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/docker/dockertest"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/document"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestMain installs the program's capabilities, as its Main does
// (capabilities.Install): the tests read the reports of the runs, every
// capability's metrics included.
func TestMain(m *testing.M) {
	capabilities.Install()
	os.Exit(m.Run())
}

// newRunner builds the images (cached by content hash) and returns a runner
// writing under a temp dir. It fails, never skips, when Docker is
// unreachable, unless SHUTDOWNLAB_SKIP_DOCKER=1 asks for a skip.
func newRunner(t *testing.T, sets ...string) *runner.Runner {
	t.Helper()
	dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := runner.New(ctx, runner.Options{Out: t.TempDir(), Sets: sets, Progress: runner.NewProgress(os.Stderr)})
	if err != nil {
		t.Fatalf("runner: %v", err)
	}
	t.Cleanup(func() {
		// Nothing of this runner's session may be left behind.
		cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		left, err := r.Engine().Leftovers(cctx, map[string]string{docker.LabelSession: r.Engine().Session()})
		if err != nil {
			t.Errorf("leftovers: %v", err)
		} else if !left.Empty() {
			t.Errorf("left behind after the runs: %s", left)
			r.Engine().CleanSession(cctx)
		}
		r.Close()
	})
	return r
}

func find(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Find(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestDirectInflightShape runs direct-inflight once per mode with a short
// load and asserts the shape of the published P2/P3 result: none drops the
// requests in flight at the signal, close and full drop none and exit 0.
func TestDirectInflightShape(t *testing.T) {
	r := newRunner(t, "runs=1", "load.duration=4s", "action.at=2s", "observe.window=5s")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, find(t, "direct-inflight"))
	if err != nil {
		t.Fatal(err)
	}
	if oc.Runs != 3 || oc.Invalid != 0 || oc.Incomplete != 0 {
		t.Fatalf("outcome %+v, want 3 valid runs", oc)
	}
	res, err := document.Rebuild(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Variants {
		if len(v.Runs) != 1 || !v.Runs[0].Valid {
			t.Fatalf("%s: runs %+v", v.Label, v.Runs)
		}
		m := v.Runs[0].Metrics
		sum := 0
		for _, n := range m.ByClass {
			sum += n
		}
		if !m.AccountingOK || sum != m.Requests || m.Requests == 0 {
			t.Errorf("%s: requests %d, sum of classes %d, accounting_ok %v", v.Label, m.Requests, sum, m.AccountingOK)
		}
		if m.DroppedInflight == nil || m.ExitCode == nil || m.InflightAtAction == nil {
			t.Fatalf("%s: missing phase or exit metrics: %+v", v.Label, m)
		}
		t.Logf("%s: requests=%d inflight=%d dropped=%d served_after=%d exit=%d after %.0f ms (signal_ref %s)",
			v.Label, m.Requests, *m.InflightAtAction, *m.DroppedInflight, *m.ServedAfterSignal, *m.ExitCode, *m.ExitAfterMs, m.SignalRef)
		switch {
		case strings.Contains(v.Label, "none"):
			// No handler: the process dies on the signal, in-flight work with it.
			if *m.DroppedInflight < 1 || *m.ExitCode == 0 || m.SignalHandled == nil || *m.SignalHandled {
				t.Errorf("none: dropped_inflight=%d exit=%d handled=%v; want drops, non-zero exit, no handler",
					*m.DroppedInflight, *m.ExitCode, m.SignalHandled)
			}
		default:
			if *m.DroppedInflight != 0 || *m.ExitCode != 0 || m.SignalHandled == nil || !*m.SignalHandled || *m.InflightAtAction < 1 {
				t.Errorf("%s: dropped_inflight=%d inflight=%d exit=%d handled=%v; want 0 dropped of >=1 in flight, exit 0, handled",
					v.Label, *m.DroppedInflight, *m.InflightAtAction, *m.ExitCode, m.SignalHandled)
			}
		}
	}
}

// TestTargetNeverReadyIsInvalid: a target that exits at start-up (a bad
// env value) makes the run invalid with a reason naming what happened,
// never a pass, and still leaves nothing behind.
func TestTargetNeverReadyIsInvalid(t *testing.T) {
	r := newRunner(t, "runs=1", "target.mode=full", "target.env.SWEEP_MS=0", "load.duration=2s", "action.at=1s")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	oc, err := r.RunScenario(ctx, find(t, "direct-inflight"))
	if err != nil {
		t.Fatal(err)
	}
	if oc.Runs != 1 || oc.Invalid != 1 {
		t.Fatalf("outcome %+v, want 1 invalid run", oc)
	}
	res, err := report.Load(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	run := res.Variants[0].Runs[0]
	if run.Valid || !strings.Contains(run.Reason, "replica-0 exited with code") || !strings.Contains(run.Reason, "before it was ready") ||
		!strings.Contains(run.Reason, "SWEEP_MS") {
		t.Errorf("run valid=%v reason %q; want invalid, naming the exit before readiness and SWEEP_MS", run.Valid, run.Reason)
	}
}

// cancelAfterLoad is a Progress that cancels the run (as Ctrl-C does) once
// load has run for `after`.
type cancelAfterLoad struct {
	runner.Progress
	after  time.Duration
	cancel func()
}

func (p cancelAfterLoad) Load(elapsed time.Duration, _ runner.LoadCount) {
	if elapsed >= p.after {
		p.cancel()
	}
}

// TestInterruptLeavesIncompleteRun: Ctrl-C mid-load stops the load, keeps
// what was measured (records with the agent's summary), marks the run
// incomplete and removes every container and network.
func TestInterruptLeavesIncompleteRun(t *testing.T) {
	dockertest.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := t.TempDir()
	runCtx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	r, err := runner.New(ctx, runner.Options{Out: out,
		Sets:     []string{"runs=2", "target.mode=full", "load.duration=20s", "action.at=15s"},
		Progress: cancelAfterLoad{Progress: runner.Discard, after: time.Second, cancel: interrupt}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	oc, err := r.RunScenario(runCtx, find(t, "direct-inflight"))
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("interrupted run took %s; the 20 s load should have been cut short", took)
	}
	if oc.Runs != 1 || oc.Incomplete != 1 {
		t.Fatalf("outcome %+v, want exactly 1 run, incomplete (no further runs after Ctrl-C)", oc)
	}
	res, err := report.Load(oc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	run := res.Variants[0].Runs[0]
	if run.Valid || !run.Meta.Incomplete || run.Metrics.Requests == 0 || run.Meta.Agent == nil {
		t.Errorf("run valid=%v incomplete=%v requests=%d summary=%v; want an incomplete run with records and the agent summary",
			run.Valid, run.Meta.Incomplete, run.Metrics.Requests, run.Meta.Agent != nil)
	}
	left, err := r.Engine().Leftovers(ctx, map[string]string{docker.LabelSession: r.Engine().Session()})
	if err != nil || !left.Empty() {
		t.Errorf("left behind: %v %v", left, err)
	}
}
