// Package cluster is the Node cluster target's supervisor as a capability
// (target.program cluster): its catalog rows, read from clustermetrics'
// analysis of the primary's fork and worker_exit events.
package cluster

import (
	"github.com/shutdownlab/shutdownlab/capabilities/cluster/clustermetrics"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Need is the capability's name: the cluster metrics exist only for runs
// of the cluster target (target.program cluster: the acted-on replica
// logged fork events).
const Need report.Need = "cluster"

// Capability is the cluster target's supervisor as a report capability;
// its rows follow the core row job_committed.
var Capability = report.Capability{Part: (*clustermetrics.Metrics)(nil), Name: Need, Requirement: "target.program cluster",
	OfSpec: func(v scenarios.Variant) bool { return IsCluster(v.Spec.Target) },
	Has:    func(_ *report.Variant, r *report.Run) bool { return Of(&r.Metrics) != nil }, Rows: rows, After: "job_committed",
	Compute: func(in report.ComputeInput) (any, []string) {
		return report.Computed(clustermetrics.Compute(in.Meta, in.Requests))
	}}

// Of returns the run's supervisor metrics; nil outside a run of the Node
// cluster target.
func Of(m *report.Metrics) *clustermetrics.Metrics {
	return report.PartOf[clustermetrics.Metrics](m, Need)
}

// row is one cluster metric row: optional, present in cluster runs.
func row(name string, k report.Kind, null string, cmp report.Comparison, doc string, read func(*clustermetrics.Metrics) report.Value) report.MetricDef {
	return report.PartDef(Need, name, k, null, cmp, doc, read)
}

// rows are the cluster metric rows; they follow the probe rows.
var rows = []report.MetricDef{
	row("forks_after_signal", report.KindCount, "n/a (no signal logged)", report.CompareLoss, "cluster: workers forked at or after the primary's first signal",
		func(c *clustermetrics.Metrics) report.Value { return report.IntPtrValue(c.ForksAfterSignal) }),
	row("crashes", report.KindCount, "", report.CompareNone, "cluster: worker exits before the first signal",
		func(c *clustermetrics.Metrics) report.Value { return report.IntValue(c.Crashes) }),
	row("resurrection_ms", report.KindMs, "n/a", report.CompareLatency, "cluster: slowest crash's worker_exit to the next fork",
		func(c *clustermetrics.Metrics) report.Value {
			if c.ResurrectionMs == nil && c.Crashes > 0 {
				return report.Value{Null: true, Why: "NEVER"}
			}
			return report.FloatPtrValue(c.ResurrectionMs)
		}),
	row("worker_exits", report.KindCount, "", report.CompareNone, "cluster: worker_exit events",
		func(c *clustermetrics.Metrics) report.Value { return report.IntValue(c.WorkerExits) }),
	row("worker_exits_code_0", report.KindCount, "", report.CompareNone, "cluster: workers that exited with code 0",
		func(c *clustermetrics.Metrics) report.Value { return report.IntValue(c.WorkerExitsCode0) }),
	row("worker_exits_code_other", report.KindCount, "", report.CompareNone, "cluster: workers that exited with another code",
		func(c *clustermetrics.Metrics) report.Value { return report.IntValue(c.WorkerExitsCodeOther) }),
	row("worker_exits_sigkill", report.KindCount, "", report.CompareNone, "cluster: workers killed by SIGKILL",
		func(c *clustermetrics.Metrics) report.Value { return report.IntValue(c.WorkerExitsSIGKILL) }),
	row("worker_exits_signal_other", report.KindCount, "", report.CompareNone, "cluster: workers killed by another signal",
		func(c *clustermetrics.Metrics) report.Value { return report.IntValue(c.WorkerExitsSignalOther) }),
	row("forced_exit", report.KindBool, "", report.CompareNone, "cluster: the primary logged forced_exit (teardown timeout)",
		func(c *clustermetrics.Metrics) report.Value { return report.BoolValue(c.ForcedExit) }),
	row("forced_exit_ms", report.KindMs, "none", report.CompareNone, "cluster: forced_exit's ms since the signal",
		func(c *clustermetrics.Metrics) report.Value { return report.FloatPtrValue(c.ForcedExitMs) }),
	row("ended_by_self", report.KindBool, "NEVER", report.CompareNone, "cluster: exited with the code of its own exit event",
		func(c *clustermetrics.Metrics) report.Value { return report.BoolPtrValue(c.EndedBySelf) }),
	row("ended_by_engine_kill", report.KindBool, "NEVER", report.CompareNone, "cluster: exit 137 after the engine's SIGKILL, no exit event",
		func(c *clustermetrics.Metrics) report.Value { return report.BoolPtrValue(c.EndedByEngineKill) }),
	row("severed_at_kill", report.KindCount, "n/a (not killed)", report.CompareLoss, "cluster: failed requests open across the kill",
		func(c *clustermetrics.Metrics) report.Value { return report.IntPtrValue(c.SeveredAtKill) }),
}
