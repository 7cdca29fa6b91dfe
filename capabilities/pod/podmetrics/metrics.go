// Package podmetrics computes the metrics of a run whose action was the
// kubelet's termination of a pod (action kind terminate;
// record.Action.Termination): under which rule of the termination each
// failed request falls — the endpoint still routed to a pod that had stopped
// serving (propagation), work the app dropped after the endpoint was gone
// (drain), the grace period's SIGKILL, a new pod that took traffic it could
// not serve — and how long the hook, the exit and the new pod's readiness
// took. Pure; report holds the result as a part of its Metrics
// (pod.Of), and its capability defines the rows (docs/metrics.md).
package podmetrics

import (
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Metrics are the termination metrics of one run. Every failed request
// of the run is in exactly one of PodFailedBeforeDeletion,
// PodFailedProxyReload, PodFailedNewPod, PodFailedPropagation,
// PodFailedDrain, PodFailedElsewhere and PodFailedAfterKill; PodFailed is
// the sum of the last five.
type Metrics struct {
	// PodFailed counts the failed requests during the termination:
	// new pod + propagation + drain + elsewhere + after kill.
	PodFailed int `json:"pod_failed"`
	// PodFailedNewPod counts failed requests the proxy sent to the new pod
	// (the upstream its answer names): the pod took traffic it could not
	// serve, because it joined the endpoints before its app was ready (no
	// readiness probe, or one that passes too early). Null without a new
	// pod.
	PodFailedNewPod *int `json:"pod_failed_new_pod"`
	// PodFailedPropagation counts failed requests sent while the endpoint
	// was still registered (before the proxy acknowledged the
	// deregistration, or at any time when it never did) that the pod no
	// longer served: sent after its stop signal, or failed before it. A
	// preStop sleep at least as long as the propagation delay is
	// Kubernetes' answer.
	PodFailedPropagation int `json:"pod_failed_propagation"`
	// PodFailedDrain counts failed requests sent before the stop signal
	// and still in flight when it was sent: work the app held when told
	// to stop and did not finish.
	PodFailedDrain int `json:"pod_failed_drain"`
	// PodFailedElsewhere counts failed requests sent after the endpoint
	// was gone: the proxy no longer routed them to the terminated pod, so
	// the pods left (or the proxy) failed them.
	PodFailedElsewhere int `json:"pod_failed_elsewhere"`
	// PodFailedAfterKill counts failed requests that ended at or after the
	// SIGKILL at the grace period's end: the grace period was shorter
	// than the hook and the drain.
	PodFailedAfterKill int `json:"pod_failed_after_kill"`
	// PodFailedBeforeDeletion counts failed requests that ended before the
	// deletion: not about the termination.
	PodFailedBeforeDeletion int `json:"pod_failed_before_deletion"`
	// PodFailedProxyReload counts, behind the proxy, failed requests
	// whose connection the proxy itself closed (eof or reset before any
	// response byte, or reset or refused while being dialled: the proxy
	// answers an upstream's failure with a 502, never by closing the
	// client's connection) that ended once the
	// deregistration was sent: Caddy closes client connections as it
	// reloads its configuration to drop the endpoint. That reload is the
	// emulation's mechanism (a Kubernetes Service does not reload), so
	// these are named apart and not in PodFailed.
	PodFailedProxyReload int `json:"pod_failed_proxy_reload"`
	// PodKilled is true when the grace period ran out, SIGKILL was sent
	// and the container ended by it (exit code 137, or it never exited):
	// an app that exited by itself as the SIGKILL went out was not killed.
	PodKilled bool `json:"pod_killed"`
	// PodHookFailed is true when the pre-stop hook failed as the kubelet
	// counts a failure (a FailedPreStopHook event: an exec that exited
	// non-zero or could not start, an httpGet that got no answer); the
	// stop signal then followed at once. Null without a hook.
	PodHookFailed *bool `json:"pod_hook_failed"`
	// PodHookMs is the pre-stop hook's time, from the deletion until the
	// kubelet stopped waiting for it; null without a hook.
	PodHookMs *float64 `json:"pod_hook_ms"`
	// PodSignalToExitMs is the stop signal to the container's exit: the
	// app's own drain; null when it did not exit within the window, or
	// exited before the signal.
	PodSignalToExitMs *float64 `json:"pod_signal_to_exit_ms"`
	// PodDeletionToExitMs is the deletion to the container's exit: what
	// terminationGracePeriodSeconds must cover; null when it did not exit
	// within the window.
	PodDeletionToExitMs *float64 `json:"pod_deletion_to_exit_ms"`
	// PodNewReadyMs is the new pod's container start to its readiness
	// (0 without a readiness probe); null without a new pod, or when it
	// never became ready.
	PodNewReadyMs *float64 `json:"pod_new_ready_ms"`
	// PodNewJoinedMs is the new pod's container start to the proxy's
	// acknowledgement that it joined the upstreams; null without a new
	// pod, or when it never joined.
	PodNewJoinedMs *float64 `json:"pod_new_joined_ms"`
}

// Compute returns the termination metrics of a run whose action was a
// termination that fired (nil otherwise).
func Compute(meta record.Meta, reqs []record.Request) *Metrics {
	a := meta.Action
	if a == nil || a.Termination() == nil || a.Termination().DeletedNs == 0 {
		return nil
	}
	t := a.Termination()
	m := &Metrics{PodKilled: t.KillSentNs > 0}
	newPod := 0
	acted := shutdown.ActedReplica(meta)
	if m.PodKilled && acted >= 0 {
		code := meta.Replicas[acted].ExitCode
		m.PodKilled = code == nil || *code == 137
	}
	for i := range reqs {
		r := &reqs[i]
		if !r.Class.Failed() {
			continue
		}
		switch classify(meta, r) {
		case ruleNewPod:
			newPod++
		case ruleBeforeDeletion:
			m.PodFailedBeforeDeletion++
		case ruleProxyReload:
			m.PodFailedProxyReload++
		case rulePropagation:
			m.PodFailedPropagation++
		case ruleDrain:
			m.PodFailedDrain++
		case ruleElsewhere:
			m.PodFailedElsewhere++
		case ruleAfterKill:
			m.PodFailedAfterKill++
		}
	}
	m.PodFailed = newPod + m.PodFailedPropagation + m.PodFailedDrain + m.PodFailedElsewhere + m.PodFailedAfterKill
	if np := t.NewPod; np != nil {
		m.PodFailedNewPod = &newPod
		if np.ReadyNs > 0 {
			m.PodNewReadyMs = msP(np.ReadyNs - np.StartedNs)
		}
		if np.RegisteredNs > 0 {
			m.PodNewJoinedMs = msP(np.RegisteredNs - np.StartedNs)
		}
	}
	if h := t.Hook; h != nil {
		failed := h.Failed()
		m.PodHookFailed = &failed
		if h.EndNs > 0 {
			m.PodHookMs = msP(h.EndNs - t.DeletedNs)
		}
	}
	if acted >= 0 && meta.Replicas[acted].ExitedNs > 0 {
		exited := meta.Replicas[acted].ExitedNs
		m.PodDeletionToExitMs = msP(exited - t.DeletedNs)
		if !t.ExitedBeforeSignal && a.SentNs > 0 && exited >= a.SentNs {
			m.PodSignalToExitMs = msP(exited - a.SentNs)
		}
	}
	return m
}

// Notes are what report.md says of a termination run beyond its
// metrics: a pre-stop hook that failed, how, and what the kubelet does
// then.
func Notes(meta record.Meta) []string {
	a := meta.Action
	if a == nil || a.Termination() == nil {
		return nil
	}
	if h := a.Termination().Hook; h.Failed() {
		return []string{HookFailureText(h)}
	}
	return nil
}

// HookFailureText is a failed hook in a verdict's words: how it failed,
// and what the kubelet does then.
func HookFailureText(h *record.HookRun) string {
	return h.Failure() + ": the kubelet records FailedPreStopHook and sends the stop signal at once"
}

// rule is the termination rule a failed request falls under.
type rule int

const (
	ruleBeforeDeletion rule = iota
	ruleNewPod
	ruleProxyReload
	rulePropagation
	ruleDrain
	ruleElsewhere
	ruleAfterKill
)

// closedByProxy: behind the proxy, the client's connection ended (eof
// or reset) before any response byte, or was reset or refused while it
// was being dialled (class refused): the client dials only the proxy, and
// a reload that replaces its listener resets the connections waiting in
// the old one's backlog.
func closedByProxy(r *record.Request) bool {
	switch r.Class {
	case record.ClassEOF, record.ClassReset, record.ClassRefused:
		return r.FirstByte == 0
	}
	return false
}

// classify says under which rule a failed request of a termination run
// falls: answered naming the new pod as its upstream, the new pod's; by
// its signature, once a reload was sent (the deregistration, or the new
// pod's joining), the proxy's reload; by when it ended, before the
// deletion; ended at or after
// SIGKILL; sent after the endpoint was gone (routed elsewhere); sent
// before the stop signal and in flight when it was sent (a drop of work
// the app held); else sent while the endpoint was registered to a pod
// that no longer served it (propagation). When a request was sent is
// when it was fully written (its start when never written): the proxy
// routes it then.
func classify(meta record.Meta, r *record.Request) rule {
	a := meta.Action
	t, d := a.Termination(), a.Deregister
	sent := r.Start
	if r.Written > 0 {
		sent = r.Written
	}
	switch {
	case t.NewPod != nil && r.Upstream != "" && r.Upstream == t.NewPod.Upstream:
		return ruleNewPod
	case meta.Topology != "" && closedByProxy(r) && reloaded(t, d, r.End):
		return ruleProxyReload
	case r.End < t.DeletedNs:
		return ruleBeforeDeletion
	case t.KillSentNs > 0 && r.End >= t.KillSentNs:
		return ruleAfterKill
	case d != nil && d.AckedNs > 0 && sent >= d.AckedNs:
		return ruleElsewhere
	case !t.ExitedBeforeSignal && a.SentNs > 0 && sent < a.SentNs && r.End >= a.SentNs:
		return ruleDrain
	}
	return rulePropagation
}

// reloaded tells whether the proxy had been told to reload by at: the
// deregistration, or the new pod's joining, sent at or before at.
func reloaded(t *record.Termination, d *record.Deregistration, at int64) bool {
	if d != nil && d.SentNs > 0 && at >= d.SentNs {
		return true
	}
	np := t.NewPod
	return np != nil && np.RegisterSentNs > 0 && at >= np.RegisterSentNs
}

func msP(ns int64) *float64 {
	v := float64(ns) / 1e6
	return &v
}
