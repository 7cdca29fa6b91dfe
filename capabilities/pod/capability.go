// Package pod is the pod's termination as a capability (action kind
// terminate, the Kubernetes emulation of check --manifest): its catalog
// rows, read from podmetrics' analysis of the run, and the headline of a
// result whose every run terminated a pod.
package pod

import (
	"github.com/shutdownlab/shutdownlab/capabilities/pod/podmetrics"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Need is the capability's name: the pod_* metrics exist only for runs
// whose action was a pod's termination (action kind terminate).
const Need report.Need = "pod"

// Capability is the pod's termination as a report capability.
var Capability = report.Capability{Part: (*podmetrics.Metrics)(nil), Name: Need, Requirement: "action.kind terminate",
	OfSpec: func(v scenarios.Variant) bool { return v.Spec.Action.Kind == scenarios.ActionTerminate },
	Has:    func(_ *report.Variant, r *report.Run) bool { return Of(&r.Metrics) != nil }, Rows: rows,
	Headline: &report.Headline{Cols: headline, Text: headlineText},
	Compute: func(in report.ComputeInput) (any, []string) {
		return report.Computed(podmetrics.Compute(in.Meta, in.Requests), podmetrics.Notes(in.Meta))
	}}

// Of returns the run's termination metrics; nil when its action was not
// a pod's termination.
func Of(m *report.Metrics) *podmetrics.Metrics { return report.PartOf[podmetrics.Metrics](m, Need) }

// row is one pod metric row: optional, present in termination runs.
func row(name string, k report.Kind, null string, cmp report.Comparison, doc string, read func(*podmetrics.Metrics) report.Value) report.MetricDef {
	return report.PartDef(Need, name, k, null, cmp, doc, read)
}

// podDefs are the pod metric rows: which rule of the termination each
// failed request falls under, then the hook's and the exit's times.
var rows = []report.MetricDef{
	row("pod_failed", report.KindCount, "", report.CompareLoss, "pod: failed requests during the termination (new pod + propagation + drain + elsewhere + after kill)",
		func(p *podmetrics.Metrics) report.Value { return report.IntValue(p.PodFailed) }),
	row("pod_failed_new_pod", report.KindCount, "n/a (no new pod)", report.CompareLoss, "pod: failed, sent by the proxy to the new pod (it joined the endpoints before its app served: no readiness probe, or one that passes too early)",
		func(p *podmetrics.Metrics) report.Value { return report.IntPtrValue(p.PodFailedNewPod) }),
	row("pod_failed_propagation", report.KindCount, "", report.CompareLoss, "pod: failed, sent while the endpoint was still registered to a pod that no longer served (preStop shorter than the propagation)",
		func(p *podmetrics.Metrics) report.Value { return report.IntValue(p.PodFailedPropagation) }),
	row("pod_failed_drain", report.KindCount, "", report.CompareLoss, "pod: failed, sent before the stop signal and in flight at it (work the app held and dropped)",
		func(p *podmetrics.Metrics) report.Value { return report.IntValue(p.PodFailedDrain) }),
	row("pod_failed_elsewhere", report.KindCount, "", report.CompareLoss, "pod: failed, sent after the endpoint was gone (the pods left, or the proxy, failed them)",
		func(p *podmetrics.Metrics) report.Value { return report.IntValue(p.PodFailedElsewhere) }),
	row("pod_failed_after_kill", report.KindCount, "", report.CompareLoss, "pod: failed at or after the grace period's SIGKILL",
		func(p *podmetrics.Metrics) report.Value { return report.IntValue(p.PodFailedAfterKill) }),
	row("pod_failed_before_deletion", report.KindCount, "", report.CompareNone, "pod: failed before the deletion (not about the termination)",
		func(p *podmetrics.Metrics) report.Value { return report.IntValue(p.PodFailedBeforeDeletion) }),
	row("pod_failed_proxy_reload", report.KindCount, "", report.CompareNone, "pod: connections the proxy closed at its reload for the deregistration (the emulation's mechanism; not in pod_failed)",
		func(p *podmetrics.Metrics) report.Value { return report.IntValue(p.PodFailedProxyReload) }),
	row("pod_killed", report.KindBool, "", report.CompareNone, "pod: the grace period ran out and SIGKILL ended the container (exit 137)",
		func(p *podmetrics.Metrics) report.Value { return report.BoolValue(p.PodKilled) }),
	row("pod_hook_failed", report.KindBool, "n/a (no hook)", report.CompareNone, "pod: the pre-stop hook failed (the kubelet's FailedPreStopHook: an exec that exited non-zero or could not start, an httpGet without an answer); the stop signal followed at once",
		func(p *podmetrics.Metrics) report.Value { return report.BoolPtrValue(p.PodHookFailed) }),
	row("pod_hook_ms", report.KindMs, "n/a (no hook)", report.CompareLatency, "pod: the pre-stop hook, deletion to its end",
		func(p *podmetrics.Metrics) report.Value { return report.FloatPtrValue(p.PodHookMs) }),
	row("pod_signal_to_exit_ms", report.KindMs, "NEVER", report.CompareLatency, "pod: stop signal to the container's exit (the app's drain)",
		func(p *podmetrics.Metrics) report.Value { return report.FloatPtrValue(p.PodSignalToExitMs) }),
	row("pod_deletion_to_exit_ms", report.KindMs, "NEVER", report.CompareLatency, "pod: deletion to the container's exit (what the grace period must cover)",
		func(p *podmetrics.Metrics) report.Value { return report.FloatPtrValue(p.PodDeletionToExitMs) }),
	row("pod_new_ready_ms", report.KindMs, "n/a (no new pod, or never ready)", report.CompareLatency, "pod: the new pod's start to its readiness (0 without a readiness probe)",
		func(p *podmetrics.Metrics) report.Value { return report.FloatPtrValue(p.PodNewReadyMs) }),
	row("pod_new_joined_ms", report.KindMs, "n/a (no new pod, or never joined)", report.CompareLatency, "pod: the new pod's start to the proxy's acknowledgement that it joined (readiness + propagation + reload)",
		func(p *podmetrics.Metrics) report.Value { return report.FloatPtrValue(p.PodNewJoinedMs) }),
}

// headline is the headline of a result whose every run terminated a
// pod: the failed requests by the rule of the termination they fall
// under, then how long the hook and the exit took.
var headline = []string{"requests", "pod_failed", "pod_failed_new_pod", "pod_failed_propagation", "pod_failed_drain", "pod_failed_elsewhere", "pod_failed_after_kill",
	"pod_failed_before_deletion", "pod_failed_proxy_reload", "pod_killed", "pod_hook_failed", "pod_hook_ms", "pod_signal_to_exit_ms",
	"pod_deletion_to_exit_ms", "exit_code", "p99_ms"}

// headlineText explains the pod headline under its table.
const headlineText = "\n`pod_failed` counts the failed requests during the pod's termination: `pod_failed_new_pod` " +
	"sent by the proxy to the new pod of a rolling update before its app served (n/a without one), `pod_failed_propagation` " +
	"sent while the endpoint was still registered to a pod that no longer served (a preStop shorter than the propagation), " +
	"`pod_failed_drain` in flight at the stop signal (work the app held and dropped), `pod_failed_elsewhere` sent after " +
	"the endpoint was gone, `pod_failed_after_kill` at the grace period's SIGKILL. " +
	"`pod_failed_before_deletion` is not about the termination; `pod_failed_proxy_reload` are client connections " +
	"the proxy closed at its reload, the emulation's mechanism. Every other metric is in the table below." +
	"\n\n## All metrics\n\n"
