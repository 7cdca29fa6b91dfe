package report

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// rolloutMeta is a rollout sent at 1000 ns: two old tasks (slot 1 drained
// and exited 0; slot 2 SIGKILLed at its grace period), two new ones, and a
// restart of slot 2's new task.
func rolloutMeta() record.Meta {
	code0, code137 := 0, 137
	return record.Meta{Rollout: &record.Rollout{SentNs: 1000, Converged: true, Tasks: []record.SwarmTask{
		{ID: "o1", Slot: 1, Generation: "old", Upstream: "10.0.0.1:8080", SignalNs: 3000, FinishedNs: 5000, ExitCode: &code0, CreatedNs: 1},
		{ID: "o2", Slot: 2, Generation: "old", Upstream: "10.0.0.2:8080", SignalNs: 4000, KillNs: 9000, FinishedNs: 9100, ExitCode: &code137, CreatedNs: 1},
		{ID: "n1", Slot: 1, Generation: "new", Upstream: "10.0.0.3:8080", State: "running", HealthyNs: 7000, CreatedNs: 1100},
		{ID: "n2", Slot: 2, Generation: "new", Upstream: "10.0.0.4:8080", State: "failed", CreatedNs: 1200},
		{ID: "n2b", Slot: 2, Generation: "new", Upstream: "10.0.0.5:8080", State: "running", HealthyNs: 8000, CreatedNs: 6000},
	}, Events: []record.SwarmEvent{{Action: "health_status: unhealthy"}, {Action: "kill", Signal: 15}}}}
}

func TestComputeRollout(t *testing.T) {
	reqs := []record.Request{
		{Start: 500, Class: record.ClassEOF, Upstream: "10.0.0.1:8080"},                     // before the update
		{Start: 3500, Class: record.ClassOK, Upstream: "10.0.0.1:8080"},                     // old, after its signal
		{Start: 2000, Class: record.ClassOK, Upstream: "10.0.0.2:8080"},                     // old, before its signal
		{Start: 4500, Class: record.ClassReset, Upstream: "10.0.0.2:8080"},                  // attributed failure
		{Start: 4600, Class: record.ClassHTTPError, Status: 502},                            // the proxy's own 502
		{Start: 8000, Class: record.ClassHTTPError, Status: 503, Upstream: "10.0.0.3:8080"}, // a task's 503
	}
	var m Metrics
	computeRollout(&m, rolloutMeta(), reqs)
	r := m.RolloutMetrics
	if r == nil {
		t.Fatal("no rollout metrics")
	}
	check := func(name string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("rollout_failed", r.RolloutFailed, 3)
	check("rollout_non2xx", r.RolloutNon2xx, 2)
	check("failed_unattributed", r.FailedUnattributed, 1)
	check("old_served_after_signal", *r.OldServedAfterSignal, 1)
	check("old_tasks_killed", r.OldTasksKilled, 1)
	check("old_exit_code", *r.OldExitCode, 137)
	check("old_stop_to_exit_ms", *r.OldStopToExitMs, 0.0051)
	check("task_restarts", r.TaskRestarts, 1)
	check("unhealthy_events", r.UnhealthyEvents, 1)
	check("rollout_ms", *r.RolloutMs, 0.0081)

	// Topology direct: no request names a task.
	var d Metrics
	computeRollout(&d, rolloutMeta(), []record.Request{{Start: 2000, Class: record.ClassEOF}})
	if d.OldServedAfterSignal != nil || d.FailedUnattributed != 1 {
		t.Errorf("direct: served after signal %v, unattributed %d", d.OldServedAfterSignal, d.FailedUnattributed)
	}
	// Not sent: no metrics.
	var n Metrics
	computeRollout(&n, record.Meta{Rollout: &record.Rollout{}}, nil)
	if n.RolloutMetrics != nil {
		t.Errorf("a rollout never sent has metrics")
	}
}

func TestTallyAndSection(t *testing.T) {
	meta := rolloutMeta()
	reqs := []record.Request{
		{Start: 900, Class: record.ClassOK, Upstream: "10.0.0.1:8080"},
		{Start: 1100, Class: record.ClassOK, Upstream: "10.0.0.3:8080"},
		{Start: 1200, Class: record.ClassReset, Upstream: "10.0.0.2:8080"},
		{Start: 1300, Class: record.ClassHTTPError, Status: 502},
	}
	rr, s := tally(meta, func(f func(*record.Request)) {
		for i := range reqs {
			f(&reqs[i])
		}
	})
	if rr.OK["o1"] != 1 || rr.OK["n1"] != 1 || rr.Failed["o2"] != 1 || rr.Unattributed != 1 {
		t.Errorf("tally: %+v", rr)
	}
	if len(s.Old) != 2 || s.Old[0].Y != 1 || s.New[1].Y != 1 || s.Failed[1].Y != 2 {
		t.Errorf("bins: old %v new %v failed %v", s.Old, s.New, s.Failed)
	}
	if _, err := renderRollout(s, meta, "t"); err != nil {
		t.Errorf("render: %v", err)
	}
	rr.Variant, rr.Run = "mode=full", 1
	var b strings.Builder
	(&rolloutSection{plotted: true, runs: []RolloutRun{rr}}).Markdown(&b, &Result{})
	for _, want := range []string{"## Rollout", "### mode=full (run 1)", "| 2 | old | o2 | 10.0.0.2:8080 |", "| 137 | true |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("section lacks %q:\n%s", want, b.String())
		}
	}
}
