package kubeapi

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodStartError says a pod cannot start: its image cannot be pulled, its
// container cannot be created or keeps crashing, it cannot be scheduled,
// or it failed. A wait that meets one returns it at once.
type PodStartError struct {
	// Pod is the pod's name; Reason the container's waiting reason
	// (ErrImagePull, CrashLoopBackOff, ...), "Unschedulable" or the failed
	// pod's reason; Message the latest Warning event's message about the
	// pod, else the container state's or condition's.
	Pod, Reason, Message string
}

// Error is "pod NAME: REASON: MESSAGE".
func (e *PodStartError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("pod %s: %s", e.Pod, e.Reason)
	}
	return fmt.Sprintf("pod %s: %s: %s", e.Pod, e.Reason, e.Message)
}

// startFailures are the container waiting reasons that mean the container
// will not start without someone changing something (the kubelet's own
// reasons: pkg/kubelet/images and pkg/kubelet/kuberuntime).
var startFailures = map[string]bool{
	"ErrImagePull":               true,
	"ImagePullBackOff":           true,
	"InvalidImageName":           true,
	"ErrImageNeverPull":          true,
	"ImageInspectError":          true,
	"CreateContainerConfigError": true,
	"CreateContainerError":       true,
	"RunContainerError":          true,
	"CrashLoopBackOff":           true,
}

// startFailure classifies a pod's state: a non-nil result says it cannot
// start, with the state's own message (the caller may put an event's in
// its place). A pod being deleted is never a start failure (its
// containers stop, and its phase may turn Failed, on purpose). Pure.
func startFailure(p *corev1.Pod) *PodStartError {
	if p.DeletionTimestamp != nil {
		return nil
	}
	if p.Status.Phase == corev1.PodFailed {
		reason := p.Status.Reason
		if reason == "" {
			reason = "Failed"
		}
		msg := p.Status.Message
		if t := firstTerminated(p); t != nil && msg == "" {
			msg = fmt.Sprintf("container exited with code %d", t.ExitCode)
			if t.Reason != "" {
				msg += " (" + t.Reason + ")"
			}
		}
		return &PodStartError{Pod: p.Name, Reason: reason, Message: msg}
	}
	for _, list := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range list {
			w := cs.State.Waiting
			if w == nil || !startFailures[w.Reason] {
				continue
			}
			msg := w.Message
			if t := cs.LastTerminationState.Terminated; t != nil && w.Reason == "CrashLoopBackOff" {
				last := fmt.Sprintf("last exit code %d", t.ExitCode)
				if t.Reason != "" {
					last += " (" + t.Reason + ")"
				}
				msg = joinNonEmpty("; ", msg, last)
			}
			return &PodStartError{Pod: p.Name, Reason: w.Reason, Message: msg}
		}
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return &PodStartError{Pod: p.Name, Reason: c.Reason, Message: c.Message}
		}
	}
	return nil
}

// firstTerminated is the first terminated container state of p, if any.
func firstTerminated(p *corev1.Pod) *corev1.ContainerStateTerminated {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated != nil {
			return cs.State.Terminated
		}
	}
	return nil
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, sep)
}

// withEvent fills e's message from the latest Warning event about its pod
// (the kubelet's "Failed to pull image ..." says more than the state's
// back-off). A failed lookup leaves the state's message.
func (c *Client) withEvent(ctx context.Context, ns string, e *PodStartError) *PodStartError {
	l, err := c.cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=Pod,involvedObject.name=" + e.Pod,
	})
	if err != nil {
		return e
	}
	if ev := latestWarning(l.Items, e.Pod); ev != nil {
		e.Message = joinNonEmpty("; ", ev.Message, lastExit(e.Message))
	}
	return e
}

// lastExit keeps the "last exit code" part of a crash loop's message.
func lastExit(msg string) string {
	if i := strings.Index(msg, "last exit code"); i >= 0 {
		return msg[i:]
	}
	return ""
}

// latestWarning picks the latest Warning event about pod, preferring one
// that is not a mere back-off (BackOff repeats "Back-off pulling image"
// while the cause is in the Failed event before it). Pure.
func latestWarning(evs []corev1.Event, pod string) *corev1.Event {
	var best, bestAny *corev1.Event
	for i := range evs {
		ev := &evs[i]
		if ev.Type != corev1.EventTypeWarning || ev.InvolvedObject.Name != pod || (ev.InvolvedObject.Kind != "" && ev.InvolvedObject.Kind != "Pod") {
			continue // the fake clientset ignores field selectors
		}
		if bestAny == nil || eventTimeNs(ev) >= eventTimeNs(bestAny) {
			bestAny = ev
		}
		if ev.Reason != "BackOff" && (best == nil || eventTimeNs(ev) >= eventTimeNs(best)) {
			best = ev
		}
	}
	if best != nil {
		return best
	}
	return bestAny
}

// eventTimeNs is an event's time of last occurrence: its series' last
// observation, else eventTime, else lastTimestamp, else firstTimestamp
// (0: none). Pure.
func eventTimeNs(ev *corev1.Event) int64 {
	switch {
	case ev.Series != nil && !ev.Series.LastObservedTime.IsZero():
		return ev.Series.LastObservedTime.UnixNano()
	case !ev.EventTime.IsZero():
		return ev.EventTime.UnixNano()
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp.UnixNano()
	case !ev.FirstTimestamp.IsZero():
		return ev.FirstTimestamp.UnixNano()
	}
	return 0
}
