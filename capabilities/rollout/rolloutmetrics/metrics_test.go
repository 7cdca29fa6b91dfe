package rolloutmetrics

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/record"
)

// rolloutMeta is a rollout of two old and three new tasks
// (internal/fixture).
var rolloutMeta = fixture.RolloutMeta

func TestComputeRollout(t *testing.T) {
	reqs := []record.Request{
		{Start: 500, Class: record.ClassEOF, Upstream: "10.0.0.1:8080"},                     // before the update
		{Start: 3500, Class: record.ClassOK, Upstream: "10.0.0.1:8080"},                     // old, after its signal
		{Start: 2000, Class: record.ClassOK, Upstream: "10.0.0.2:8080"},                     // old, before its signal
		{Start: 4500, Class: record.ClassReset, Upstream: "10.0.0.2:8080"},                  // attributed failure
		{Start: 4600, Class: record.ClassHTTPError, Status: 502},                            // the proxy's own 502
		{Start: 8000, Class: record.ClassHTTPError, Status: 503, Upstream: "10.0.0.3:8080"}, // a task's 503
	}
	r := Compute(rolloutMeta(), reqs)
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
	d := Compute(rolloutMeta(), []record.Request{{Start: 2000, Class: record.ClassEOF}})
	if d.OldServedAfterSignal != nil || d.FailedUnattributed != 1 {
		t.Errorf("direct: served after signal %v, unattributed %d", d.OldServedAfterSignal, d.FailedUnattributed)
	}
	// Not sent: no metrics.
	if n := Compute(record.Meta{}.With(&record.Rollout{}), nil); n != nil {
		t.Errorf("a rollout never sent has metrics")
	}
}
