package rollout

import (
	"github.com/shutdownlab/shutdownlab/capabilities/rollout/rolloutmetrics"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Need is the capability's name: the rollout metrics exist only for runs
// of platform swarm whose action rolled the service (record.Meta.Rollout).
const Need report.Need = "rollout"

// Capability is a Swarm service's rollout as a report capability: its
// catalog rows, read from rolloutmetrics' analysis of the run, its
// headline, and (Section) its part of report.md.
var Capability = report.Capability{Part: (*rolloutmetrics.Metrics)(nil), Name: Need, Requirement: "platform swarm with action.kind rollout",
	OfSpec: func(v scenarios.Variant) bool { return v.Spec.Action.Kind == scenarios.ActionRollout },
	Has:    func(_ *report.Variant, r *report.Run) bool { return r.Meta.Rollout() != nil }, Rows: rows,
	Headline: &report.Headline{Cols: headline, Text: headlineText},
	Compute: func(in report.ComputeInput) (any, []string) {
		return report.Computed(rolloutmetrics.Compute(in.Meta, in.Requests), nil)
	}}

// Of returns the run's rollout metrics; nil unless it rolled a Swarm
// service.
func Of(m *report.Metrics) *rolloutmetrics.Metrics {
	return report.PartOf[rolloutmetrics.Metrics](m, Need)
}

// row is one rollout metric row: optional, present in rollout runs.
func row(name string, k report.Kind, null string, cmp report.Comparison, doc string, read func(*rolloutmetrics.Metrics) report.Value) report.MetricDef {
	return report.PartDef(Need, name, k, null, cmp, doc, read)
}

// rolloutDefs are the rollout metric rows.
var rows = []report.MetricDef{
	row("rollout_failed", report.KindCount, "", report.CompareLoss, "rollout: failed requests started at or after the service update was sent",
		func(r *rolloutmetrics.Metrics) report.Value { return report.IntValue(r.RolloutFailed) }),
	row("rollout_non2xx", report.KindCount, "", report.CompareLoss, "rollout: of rollout_failed, HTTP responses outside 2xx",
		func(r *rolloutmetrics.Metrics) report.Value { return report.IntValue(r.RolloutNon2xx) }),
	row("rollout_ms", report.KindMs, "NEVER", report.CompareLatency, "rollout: update sent to the last old task's exit or new task's healthy start (engine)",
		func(r *rolloutmetrics.Metrics) report.Value { return report.FloatPtrValue(r.RolloutMs) }),
	row("rollout_converged", report.KindBool, "", report.CompareNone, "rollout: every new task ran and every old one ended within the bound",
		func(r *rolloutmetrics.Metrics) report.Value { return report.BoolValue(r.RolloutConverged) }),
	row("old_tasks_killed", report.KindCount, "", report.CompareLoss, "rollout: old tasks SIGKILLed at the end of their grace period",
		func(r *rolloutmetrics.Metrics) report.Value { return report.IntValue(r.OldTasksKilled) }),
	row("old_exit_code", report.KindCode, "NEVER", report.CompareCodes, "rollout: largest exit code of the old tasks",
		func(r *rolloutmetrics.Metrics) report.Value { return report.IntPtrValue(r.OldExitCode) }),
	row("old_stop_to_exit_ms", report.KindMs, "n/a", report.CompareLatency, "rollout: slowest old task, stop signal to exit (engine events)",
		func(r *rolloutmetrics.Metrics) report.Value { return report.FloatPtrValue(r.OldStopToExitMs) }),
	row("old_served_after_signal", report.KindCount, "n/a (no upstream header)", report.CompareNone, "rollout: ok requests old tasks served that started after their stop signal",
		func(r *rolloutmetrics.Metrics) report.Value { return report.IntPtrValue(r.OldServedAfterSignal) }),
	row("task_restarts", report.KindCount, "", report.CompareLoss, "rollout: tasks beyond one old and one new per slot (Swarm replaced failed or unhealthy ones)",
		func(r *rolloutmetrics.Metrics) report.Value { return report.IntValue(r.TaskRestarts) }),
	row("unhealthy_events", report.KindCount, "", report.CompareNone, "rollout: the engine's health_status: unhealthy events",
		func(r *rolloutmetrics.Metrics) report.Value { return report.IntValue(r.UnhealthyEvents) }),
	row("failed_unattributed", report.KindCount, "", report.CompareNone, "rollout: of rollout_failed, requests that name no task (no upstream header)",
		func(r *rolloutmetrics.Metrics) report.Value { return report.IntValue(r.FailedUnattributed) }),
}

// headline is the headline of a result whose every run rolled a
// Swarm service: the per-replica metrics of the other scenarios (exit_code
// of "the acted-on replica") have no single replica to read here.
var headline = []string{"requests", "rollout_failed", "rollout_non2xx", "rollout_ms", "old_tasks_killed",
	"old_exit_code", "old_stop_to_exit_ms", "old_served_after_signal", "task_restarts", "p99_ms"}

// headlineText explains the rollout headline under its table.
const headlineText = "\n`rollout_failed` counts failed requests started from the moment the update (a Swarm " +
	"service update, a Kubernetes rollout) was sent to the end of the load (`rollout_non2xx` those answered outside 2xx); `rollout_ms` runs from the " +
	"update to the last old task's exit or new task's healthy start; `old_*` are the replaced tasks as the " +
	"engine reported them (exit code, stop signal to exit, SIGKILLed at the grace period); " +
	"`old_served_after_signal` requests routed to an old task after its stop signal; `task_restarts` tasks the " +
	"orchestrator replaced beyond the rollout's own. On Kubernetes a task is a pod and its stop signal the deletion the " +
	"API showed. The Rollout section below has each task. The per-replica metrics of the " +
	"other scenarios (`exit_code`, `dropped_inflight`, ...) have no single acted-on replica here and are null." +
	"\n\n## All metrics\n\n"
