package report

import (
	"slices"

	"github.com/shutdownlab/shutdownlab/record"
)

// NeedsRollout: the rollout metrics exist only for runs of platform swarm
// whose action rolled the service (Meta.Rollout).
const NeedsRollout Need = "rollout"

// RolloutMetrics are the metrics of a Swarm rollout (record.Rollout):
// what the clients saw over the whole rollout, and what the engine says of
// the old tasks. Pure functions of the run's Meta and records.
type RolloutMetrics struct {
	// RolloutFailed counts failed requests started at or after the update
	// was sent (until the load's end); RolloutNon2xx those of them that
	// got an HTTP response outside 2xx.
	RolloutFailed int `json:"rollout_failed"`
	RolloutNon2xx int `json:"rollout_non2xx"`
	// RolloutMs is the update's send time to the last of: an old task's
	// exit, a new task's reaching running (healthy); null when it did not
	// converge.
	RolloutMs *float64 `json:"rollout_ms"`
	// RolloutConverged: every new task ran and every old one ended within
	// the bound.
	RolloutConverged bool `json:"rollout_converged"`
	// OldTasksKilled counts old tasks SIGKILLed (the grace period ran
	// out: a SIGKILL event after the stop signal, or exit 137).
	OldTasksKilled int `json:"old_tasks_killed"`
	// OldExitCode is the largest exit code of the old tasks (0 when every
	// one exited 0); null when one never exited.
	OldExitCode *int `json:"old_exit_code"`
	// OldStopToExitMs is the slowest old task's time from its stop signal
	// (the engine's kill event) to its exit (the container's FinishedAt).
	OldStopToExitMs *float64 `json:"old_stop_to_exit_ms"`
	// OldServedAfterSignal counts ok requests an old task served that
	// started after its stop signal (traffic still routed to it); null
	// when no request names the task that served it (topology direct).
	OldServedAfterSignal *int `json:"old_served_after_signal"`
	// TaskRestarts counts tasks beyond one old and one new per slot:
	// replacements Swarm made of failed or unhealthy tasks.
	TaskRestarts int `json:"task_restarts"`
	// UnhealthyEvents counts the engine's health_status: unhealthy events.
	UnhealthyEvents int `json:"unhealthy_events"`
	// FailedUnattributed counts failed requests in the rollout that name
	// no task (no upstream header: the proxy answered itself, or topology
	// direct).
	FailedUnattributed int `json:"failed_unattributed"`
}

// computeRollout fills the rollout metrics of a run with a Swarm rollout.
func computeRollout(m *Metrics, meta record.Meta, reqs []record.Request) {
	r := meta.Rollout
	if r == nil || r.SentNs == 0 {
		return
	}
	rm := &RolloutMetrics{RolloutConverged: r.Converged}
	m.RolloutMetrics = rm
	tasks := map[string]*record.SwarmTask{}
	for i := range r.Tasks {
		if t := &r.Tasks[i]; t.Upstream != "" {
			tasks[t.Upstream] = t
		}
	}
	served, named := 0, false
	for i := range reqs {
		q := &reqs[i]
		t := tasks[q.Upstream]
		named = named || t != nil
		if q.Class == record.ClassOK && t != nil && t.Generation == record.GenerationOld && t.SignalNs > 0 && q.Start > t.SignalNs {
			served++
		}
		if q.Start < r.SentNs || !q.Class.Failed() {
			continue
		}
		rm.RolloutFailed++
		if q.Class == record.ClassHTTPError {
			rm.RolloutNon2xx++
		}
		if t == nil {
			rm.FailedUnattributed++
		}
	}
	if named {
		rm.OldServedAfterSignal = &served
	}
	oldTasks(rm, r)
	rm.TaskRestarts = taskRestarts(r)
	for _, e := range r.Events {
		if e.Action == "health_status: unhealthy" {
			rm.UnhealthyEvents++
		}
	}
	if r.Converged {
		rm.RolloutMs = rolloutEnd(r)
	}
}

// oldTasks fills the old tasks' exit metrics.
func oldTasks(rm *RolloutMetrics, r *record.Rollout) {
	worst, all := 0, true
	for _, t := range r.Tasks {
		if t.Generation != record.GenerationOld || t.CreatedNs > r.SentNs {
			continue
		}
		if t.KillNs > 0 || t.ExitCode != nil && *t.ExitCode == 137 {
			rm.OldTasksKilled++
		}
		if t.ExitCode == nil {
			all = false
		} else {
			worst = max(worst, *t.ExitCode)
		}
		if t.SignalNs > 0 && t.FinishedNs > 0 {
			d := float64(t.FinishedNs-t.SignalNs) / 1e6
			if rm.OldStopToExitMs == nil || d > *rm.OldStopToExitMs {
				rm.OldStopToExitMs = &d
			}
		}
	}
	if all {
		rm.OldExitCode = &worst
	}
}

// taskRestarts counts tasks beyond one per slot before the update and one
// per slot after it. Pure.
func taskRestarts(r *record.Rollout) int {
	perSlot := map[[2]int]int{}
	for _, t := range r.Tasks {
		gen := 0
		if t.Generation == record.GenerationNew {
			gen = 1
		}
		perSlot[[2]int{t.Slot, gen}]++
	}
	n := 0
	for _, c := range perSlot {
		n += c - 1
	}
	return n
}

// rolloutEnd is the update's send time to the last old task's exit or new
// task's start of service (its first healthy event, else the time it
// reached running), in ms; nil without tasks.
func rolloutEnd(r *record.Rollout) *float64 {
	var ends []int64
	for _, t := range r.Tasks {
		switch {
		case t.Generation == record.GenerationOld && t.FinishedNs > 0:
			ends = append(ends, t.FinishedNs)
		case t.Generation == record.GenerationNew && t.State == "running" && t.HealthyNs > 0:
			ends = append(ends, t.HealthyNs)
		case t.Generation == record.GenerationNew && t.State == "running":
			ends = append(ends, t.StatusNs)
		}
	}
	if len(ends) == 0 {
		return nil
	}
	d := float64(slices.Max(ends)-r.SentNs) / 1e6
	return &d
}

// isRolloutRun is the presence test of the rollout metric rows.
func isRolloutRun(m *Metrics) bool { return m.RolloutMetrics != nil }

// rolloutDef is one rollout metric row: optional, present in rollout runs.
func rolloutDef(name string, k Kind, null string, cmp Comparison, doc string, get func(*RolloutMetrics) Value) MetricDef {
	return MetricDef{Name: name, Kind: k, Null: null, Compare: cmp, Optional: NeedsRollout, present: isRolloutRun, Doc: doc,
		get: func(m *Metrics) Value {
			if m.RolloutMetrics == nil {
				return Value{Null: true}
			}
			return get(m.RolloutMetrics)
		}}
}

// rolloutDefs are the rollout metric rows.
var rolloutDefs = []MetricDef{
	rolloutDef("rollout_failed", KindCount, "", CompareLoss, "rollout: failed requests started at or after the service update was sent",
		func(r *RolloutMetrics) Value { return intV(r.RolloutFailed) }),
	rolloutDef("rollout_non2xx", KindCount, "", CompareLoss, "rollout: of rollout_failed, HTTP responses outside 2xx",
		func(r *RolloutMetrics) Value { return intV(r.RolloutNon2xx) }),
	rolloutDef("rollout_ms", KindMs, "NEVER", CompareLatency, "rollout: update sent to the last old task's exit or new task's healthy start (engine)",
		func(r *RolloutMetrics) Value { return floatP(r.RolloutMs) }),
	rolloutDef("rollout_converged", KindBool, "", CompareNone, "rollout: every new task ran and every old one ended within the bound",
		func(r *RolloutMetrics) Value { return boolV(r.RolloutConverged) }),
	rolloutDef("old_tasks_killed", KindCount, "", CompareLoss, "rollout: old tasks SIGKILLed at the end of their grace period",
		func(r *RolloutMetrics) Value { return intV(r.OldTasksKilled) }),
	rolloutDef("old_exit_code", KindCode, "NEVER", CompareCodes, "rollout: largest exit code of the old tasks",
		func(r *RolloutMetrics) Value { return intP(r.OldExitCode) }),
	rolloutDef("old_stop_to_exit_ms", KindMs, "n/a", CompareLatency, "rollout: slowest old task, stop signal to exit (engine events)",
		func(r *RolloutMetrics) Value { return floatP(r.OldStopToExitMs) }),
	rolloutDef("old_served_after_signal", KindCount, "n/a (no upstream header)", CompareNone, "rollout: ok requests old tasks served that started after their stop signal",
		func(r *RolloutMetrics) Value { return intP(r.OldServedAfterSignal) }),
	rolloutDef("task_restarts", KindCount, "", CompareLoss, "rollout: tasks beyond one old and one new per slot (Swarm replaced failed or unhealthy ones)",
		func(r *RolloutMetrics) Value { return intV(r.TaskRestarts) }),
	rolloutDef("unhealthy_events", KindCount, "", CompareNone, "rollout: the engine's health_status: unhealthy events",
		func(r *RolloutMetrics) Value { return intV(r.UnhealthyEvents) }),
	rolloutDef("failed_unattributed", KindCount, "", CompareNone, "rollout: of rollout_failed, requests that name no task (no upstream header)",
		func(r *RolloutMetrics) Value { return intV(r.FailedUnattributed) }),
}
