package report

import (
	"github.com/shutdownlab/shutdownlab/report/podmetrics"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// PodMetrics are the metrics of a run whose action was the kubelet's
// termination of a pod (podmetrics.Metrics).
type PodMetrics = podmetrics.Metrics

// NeedsPod: the pod_* metrics exist only for runs whose action was a
// pod's termination (action kind terminate).
const NeedsPod Need = "pod"

// podCapability is the pod's termination as a capability (capabilities).
var podCapability = Capability{Part: (*PodMetrics)(nil), Name: NeedsPod, Requirement: "action.kind terminate",
	OfSpec: func(v scenarios.Variant) bool { return v.Spec.Action.Kind == scenarios.ActionTerminate },
	Has:    func(_ *Variant, r *Run) bool { return isPodRun(&r.Metrics) }, Rows: podDefs,
	Headline: &Headline{podHeadline, podHeadlineText},
	Compute:  func(in ComputeInput) (any, []string) { return computed(podmetrics.Compute(in.Meta, in.Requests), nil) }}

// Pod returns the run's termination metrics; nil when its action was not
// a pod's termination.
func (m *Metrics) Pod() *PodMetrics { return partOf[PodMetrics](m, NeedsPod) }

// isPodRun is the presence test of the pod metric rows.
func isPodRun(m *Metrics) bool { return m.Pod() != nil }

// podDef is one pod metric row: optional, present in termination runs.
func podDef(name string, k Kind, null string, cmp Comparison, doc string, get func(*PodMetrics) Value) MetricDef {
	return MetricDef{Name: name, Kind: k, Null: null, Compare: cmp, Optional: NeedsPod, present: isPodRun, Doc: doc,
		get: func(m *Metrics) Value {
			if m.Pod() == nil {
				return Value{Null: true}
			}
			return get(m.Pod())
		}}
}

// podDefs are the pod metric rows: which rule of the termination each
// failed request falls under, then the hook's and the exit's times.
var podDefs = []MetricDef{
	podDef("pod_failed", KindCount, "", CompareLoss, "pod: failed requests during the termination (new pod + propagation + drain + elsewhere + after kill)",
		func(p *PodMetrics) Value { return intV(p.PodFailed) }),
	podDef("pod_failed_new_pod", KindCount, "n/a (no new pod)", CompareLoss, "pod: failed, sent by the proxy to the new pod (it joined the endpoints before its app served: no readiness probe, or one that passes too early)",
		func(p *PodMetrics) Value { return intP(p.PodFailedNewPod) }),
	podDef("pod_failed_propagation", KindCount, "", CompareLoss, "pod: failed, sent while the endpoint was still registered to a pod that no longer served (preStop shorter than the propagation)",
		func(p *PodMetrics) Value { return intV(p.PodFailedPropagation) }),
	podDef("pod_failed_drain", KindCount, "", CompareLoss, "pod: failed, sent before the stop signal and in flight at it (work the app held and dropped)",
		func(p *PodMetrics) Value { return intV(p.PodFailedDrain) }),
	podDef("pod_failed_elsewhere", KindCount, "", CompareLoss, "pod: failed, sent after the endpoint was gone (the pods left, or the proxy, failed them)",
		func(p *PodMetrics) Value { return intV(p.PodFailedElsewhere) }),
	podDef("pod_failed_after_kill", KindCount, "", CompareLoss, "pod: failed at or after the grace period's SIGKILL",
		func(p *PodMetrics) Value { return intV(p.PodFailedAfterKill) }),
	podDef("pod_failed_before_deletion", KindCount, "", CompareNone, "pod: failed before the deletion (not about the termination)",
		func(p *PodMetrics) Value { return intV(p.PodFailedBeforeDeletion) }),
	podDef("pod_failed_proxy_reload", KindCount, "", CompareNone, "pod: connections the proxy closed at its reload for the deregistration (the emulation's mechanism; not in pod_failed)",
		func(p *PodMetrics) Value { return intV(p.PodFailedProxyReload) }),
	podDef("pod_killed", KindBool, "", CompareNone, "pod: the grace period ran out and SIGKILL ended the container (exit 137)",
		func(p *PodMetrics) Value { return boolV(p.PodKilled) }),
	podDef("pod_hook_ms", KindMs, "n/a (no hook)", CompareLatency, "pod: the pre-stop hook, deletion to its end",
		func(p *PodMetrics) Value { return floatP(p.PodHookMs) }),
	podDef("pod_signal_to_exit_ms", KindMs, "NEVER", CompareLatency, "pod: stop signal to the container's exit (the app's drain)",
		func(p *PodMetrics) Value { return floatP(p.PodSignalToExitMs) }),
	podDef("pod_deletion_to_exit_ms", KindMs, "NEVER", CompareLatency, "pod: deletion to the container's exit (what the grace period must cover)",
		func(p *PodMetrics) Value { return floatP(p.PodDeletionToExitMs) }),
	podDef("pod_new_ready_ms", KindMs, "n/a (no new pod, or never ready)", CompareLatency, "pod: the new pod's start to its readiness (0 without a readiness probe)",
		func(p *PodMetrics) Value { return floatP(p.PodNewReadyMs) }),
	podDef("pod_new_joined_ms", KindMs, "n/a (no new pod, or never joined)", CompareLatency, "pod: the new pod's start to the proxy's acknowledgement that it joined (readiness + propagation + reload)",
		func(p *PodMetrics) Value { return floatP(p.PodNewJoinedMs) }),
}

// podHeadline is the headline of a result whose every run terminated a
// pod: the failed requests by the rule of the termination they fall
// under, then how long the hook and the exit took.
var podHeadline = []string{"requests", "pod_failed", "pod_failed_new_pod", "pod_failed_propagation", "pod_failed_drain", "pod_failed_elsewhere", "pod_failed_after_kill",
	"pod_failed_before_deletion", "pod_failed_proxy_reload", "pod_killed", "pod_hook_ms", "pod_signal_to_exit_ms",
	"pod_deletion_to_exit_ms", "exit_code", "p99_ms"}

// podHeadlineText explains the pod headline under its table.
const podHeadlineText = "\n`pod_failed` counts the failed requests during the pod's termination: `pod_failed_new_pod` " +
	"sent by the proxy to the new pod of a rolling update before its app served (n/a without one), `pod_failed_propagation` " +
	"sent while the endpoint was still registered to a pod that no longer served (a preStop shorter than the propagation), " +
	"`pod_failed_drain` in flight at the stop signal (work the app held and dropped), `pod_failed_elsewhere` sent after " +
	"the endpoint was gone, `pod_failed_after_kill` at the grace period's SIGKILL. " +
	"`pod_failed_before_deletion` is not about the termination; `pod_failed_proxy_reload` are client connections " +
	"the proxy closed at its reload, the emulation's mechanism. Every other metric is in the table below." +
	"\n\n## All metrics\n\n"
