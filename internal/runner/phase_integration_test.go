package runner_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// TestVerdictDoesNotMoveWithPhase sweeps action.at over one 300 ms request
// period (6 offsets, 50 ms apart) against a target that drops everything
// in flight (mode none: the Go runtime dies on SIGTERM) and a graceful one
// (mode full), with the default staggered load. The verdict must be the
// same at every offset: none drops in-flight work (at least half of the 20
// clients' requests, fully written before the signal was sent), full drops
// none, and whatever full's clients saw fail inside the delivery window was
// a refused reconnect (it never reached the app) or the idle-close race (a
// request written onto a keep-alive connection the drain's sweep closed:
// measured once in 12 full runs), not a request the server had read.
// With the old lockstep load and send-time phases this verdict depended on
// whether the action landed on a request boundary.
func TestVerdictDoesNotMoveWithPhase(t *testing.T) {
	for _, mode := range []string{"none", "full"} {
		for k := range 6 {
			at := 1500*time.Millisecond + time.Duration(k)*50*time.Millisecond
			t.Run(fmt.Sprintf("%s/at=%s", mode, at), func(t *testing.T) {
				r := newRunner(t, "runs=1", "target.mode="+mode, "load.duration=3s", "action.at="+at.String(), "observe.window=4s")
				run, reqs := runWithRecords(t, r, "direct-inflight")
				m := run.Metrics
				if m.DroppedInflight == nil || m.InflightAtAction == nil || m.FailedInDeliveryWindow == nil {
					t.Fatalf("phase metrics missing: %+v", m)
				}
				t.Logf("%s at %s: inflight %d dropped %d window %d (%.1f ms, %s) after %d exit %v",
					mode, at, *m.InflightAtAction, *m.DroppedInflight, *m.FailedInDeliveryWindow,
					*m.DeliveryWindowMs, m.SignalRef, *m.FailedAfterSignal, fmtIP(m.ExitCode))
				if *m.InflightAtAction > 20 {
					t.Errorf("inflight_at_action %d > 20 clients", *m.InflightAtAction)
				}
				switch mode {
				case "none":
					if *m.DroppedInflight < 10 {
						t.Errorf("none: dropped_inflight %d, want >= 10 of 20 staggered clients (a false pass)", *m.DroppedInflight)
					}
				case "full":
					if *m.DroppedInflight != 0 {
						t.Errorf("full: dropped_inflight %d, want 0", *m.DroppedInflight)
					}
					if n := windowUnexplained(run.Meta, reqs); n != 0 {
						t.Errorf("full: %d requests failed in the delivery window that were neither refused nor the idle-close race", n)
					}
				}
			})
		}
	}
}

// runWithRecords runs a one-variant, one-run scenario and returns the run
// with its request records.
func runWithRecords(t *testing.T, r *runner.Runner, name string) (report.Run, []record.Request) {
	t.Helper()
	run, dir := runOneIn(t, r, name)
	_, reqs, err := report.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run, reqs
}

// windowUnexplained counts the failed requests in the delivery window that
// were neither refused nor of the idle-close signature.
func windowUnexplained(meta record.Meta, reqs []record.Request) int {
	w, ok := shutdown.DeliveryWindow(meta)
	if !ok {
		return 0
	}
	n := 0
	for i := range reqs {
		r := &reqs[i]
		if report.IsFailed(r.Class) && r.Class != record.ClassRefused && !report.IsIdleCloseRace(r) && report.PhaseOf(r, w) == report.PhaseWindow {
			n++
		}
	}
	return n
}
