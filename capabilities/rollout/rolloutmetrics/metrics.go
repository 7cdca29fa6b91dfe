// Package rolloutmetrics computes the metrics of a run that rolled a Swarm
// service (platform swarm; record.Meta.Rollout) from its tasks as the
// engine reported them and its request records: what the clients saw over
// the whole rollout, and how the old tasks ended. Pure; report holds the
// result as a part of its Metrics (rollout.Of), and its capability
// defines the rows.
package rolloutmetrics

import (
	"slices"

	"github.com/shutdownlab/shutdownlab/record"
)

// Metrics are the metrics of a Swarm rollout (record.Rollout): what the
// clients saw over the whole rollout, and what the engine says of the old
// tasks. Pure functions of the run's Meta and records, held by
// report.Metrics as a part (rollout.Of).
type Metrics struct {
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

// Compute returns the rollout metrics of a run with a Swarm rollout (nil
// without one, or when the update was never sent).
func Compute(meta record.Meta, reqs []record.Request) *Metrics {
	r := meta.Rollout()
	if r == nil || r.SentNs == 0 {
		return nil
	}
	rm := &Metrics{RolloutConverged: r.Converged}
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
	return rm
}

// oldTasks fills the old tasks' exit metrics.
func oldTasks(rm *Metrics, r *record.Rollout) {
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
