package rollout

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// kubeIntro opens the Rollout section of a platform kubernetes result: what
// the pods' times are, and what a cluster does not show.
func kubeIntro(k *record.Kubernetes) string {
	return fmt.Sprintf("The Deployment was rolled by its controller (`kubectl rollout restart`, or `set image`) while the load ran, "+
		"on cluster context `%s` (%s, %s), in the run's own namespace `%s` (deleted afterwards). Pods are as the API reported them, "+
		"times in ms after the rollout was sent: `deletion` is when the watch saw the pod's deletion (the kubelet then runs the "+
		"preStop hook and sends the stop signal; neither shows in the API); `not ready` and `left` are when the Service's "+
		"EndpointSlice showed its endpoint not ready (or terminating) and removed: the start of the propagation, which kube-proxy "+
		"then applies to new connections (existing keep-alive connections stay on their pod); `exit` is the container's end, "+
		"at most this (the API states finishedAt in whole seconds, and the watch sees it after the kubelet reports it: up to 1 s "+
		"early or late). Behind a ClusterIP the clients cannot tell which pod answered, so requests are not counted per pod.\n",
		report.MarkdownCell(k.Context), report.MarkdownCell(k.Server), report.MarkdownCell(k.ServerVersion), report.MarkdownCell(k.Namespace))
}

// writeKubeRun writes one variant's rollout on a cluster: the rollout as
// sent, and each pod with its endpoint's changes.
func writeKubeRun(b *strings.Builder, rr variantRollout) {
	r, k := rr.Meta.Rollout(), rr.Meta.Kubernetes()
	fmt.Fprintf(b, "\n### %s (run %d)\n\n", report.MarkdownCell(rr.Variant), rr.Run)
	conv := "did **not** complete within its bound"
	if r.Converged {
		conv = fmt.Sprintf("completed %s ms after it was sent", msText(r.ConvergedNs, r.SentNs))
	}
	what := "restart (same template, new pods)"
	if r.Image != "" {
		what = "to image " + r.Image
	}
	fmt.Fprintf(b, "Rollout %s, order %s, parallelism %d, terminationGracePeriodSeconds %s, readiness %s; %s.",
		what, r.Order, r.Parallelism, num(r.StopGracePeriodMs/1000), r.HealthCheck, conv)
	if k.WatchError != "" {
		fmt.Fprintf(b, " The watch broke: %s.", report.MarkdownCell(k.WatchError))
	}
	b.WriteString("\n\n| pod | generation | address | ready | deletion | not ready | left | exit | exit code | killed | unhealthy |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	pods := map[string]record.KubePod{}
	for _, p := range k.Pods {
		pods[p.Name] = p
	}
	for _, t := range r.Tasks {
		code := "—"
		if t.ExitCode != nil {
			code = strconv.Itoa(*t.ExitCode)
		}
		notReady, left := endpointChanges(k.Endpoints, pods[t.ID])
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %v | %d |\n", report.MarkdownCell(t.ID), t.Generation,
			orDash(t.Upstream), msText(t.HealthyNs, r.SentNs), msText(t.SignalNs, r.SentNs), msText(notReady, r.SentNs),
			msText(left, r.SentNs), msText(t.FinishedNs, r.SentNs), code, t.KillNs > 0 || code == "137", t.Unhealthy)
	}
	if rr.Plot != "" {
		b.WriteString("\n![requests over the rollout](" + rr.Plot + ")\n")
	}
}

// endpointChanges are when pod's endpoint was first seen not ready or
// terminating after its deletion, and when it left the slices (0: not
// seen).
func endpointChanges(eps []record.KubeEndpoint, p record.KubePod) (notReady, left int64) {
	if p.DeletionSeenNs == 0 {
		return 0, 0
	}
	for _, e := range eps {
		if e.Pod != p.Name && (p.IP == "" || e.IP != p.IP) || e.ObservedNs < p.DeletionSeenNs {
			continue
		}
		if notReady == 0 && (e.Ready != nil && !*e.Ready || e.Terminating != nil && *e.Terminating) {
			notReady = e.ObservedNs
		}
		if left == 0 && e.Removed {
			left = e.ObservedNs
		}
	}
	return notReady, left
}
