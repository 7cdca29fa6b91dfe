package report

import "github.com/shutdownlab/shutdownlab/report/podmetrics"

// PodMetrics are the metrics of a run whose action was the kubelet's
// termination of a pod (podmetrics.Metrics).
type PodMetrics = podmetrics.Metrics

// NeedsPod: the pod_* metrics exist only for runs whose action was a
// pod's termination (action kind terminate).
const NeedsPod Need = "pod"

// isPodRun is the presence test of the pod metric rows.
func isPodRun(m *Metrics) bool { return m.PodMetrics != nil }

// podDef is one pod metric row: optional, present in termination runs.
func podDef(name string, k Kind, null string, cmp Comparison, doc string, get func(*PodMetrics) Value) MetricDef {
	return MetricDef{Name: name, Kind: k, Null: null, Compare: cmp, Optional: NeedsPod, present: isPodRun, Doc: doc,
		get: func(m *Metrics) Value {
			if m.PodMetrics == nil {
				return Value{Null: true}
			}
			return get(m.PodMetrics)
		}}
}

// podDefs are the pod metric rows: which rule of the termination each
// failed request falls under, then the hook's and the exit's times.
var podDefs = []MetricDef{
	podDef("pod_failed", KindCount, "", CompareLoss, "pod: failed requests the termination caused (propagation + drain + after kill)",
		func(p *PodMetrics) Value { return intV(p.PodFailed) }),
	podDef("pod_failed_propagation", KindCount, "", CompareLoss, "pod: failed after the deletion while the endpoint was still registered (preStop shorter than the propagation)",
		func(p *PodMetrics) Value { return intV(p.PodFailedPropagation) }),
	podDef("pod_failed_drain", KindCount, "", CompareLoss, "pod: failed after the endpoint was gone, before any SIGKILL (work the app dropped on its stop signal)",
		func(p *PodMetrics) Value { return intV(p.PodFailedDrain) }),
	podDef("pod_failed_after_kill", KindCount, "", CompareLoss, "pod: failed at or after the grace period's SIGKILL",
		func(p *PodMetrics) Value { return intV(p.PodFailedAfterKill) }),
	podDef("pod_failed_before_deletion", KindCount, "", CompareNone, "pod: failed before the deletion (not about the termination)",
		func(p *PodMetrics) Value { return intV(p.PodFailedBeforeDeletion) }),
	podDef("pod_failed_proxy_reload", KindCount, "", CompareNone, "pod: idle-close failures at the proxy's reload for the deregistration (the emulation's mechanism; not in pod_failed)",
		func(p *PodMetrics) Value { return intV(p.PodFailedProxyReload) }),
	podDef("pod_killed", KindBool, "", CompareNone, "pod: the grace period ran out and SIGKILL was sent",
		func(p *PodMetrics) Value { return boolV(p.PodKilled) }),
	podDef("pod_hook_ms", KindMs, "n/a (no hook)", CompareLatency, "pod: the pre-stop hook, deletion to its end",
		func(p *PodMetrics) Value { return floatP(p.PodHookMs) }),
	podDef("pod_signal_to_exit_ms", KindMs, "NEVER", CompareLatency, "pod: stop signal to the container's exit (the app's drain)",
		func(p *PodMetrics) Value { return floatP(p.PodSignalToExitMs) }),
	podDef("pod_deletion_to_exit_ms", KindMs, "NEVER", CompareLatency, "pod: deletion to the container's exit (what the grace period must cover)",
		func(p *PodMetrics) Value { return floatP(p.PodDeletionToExitMs) }),
}
