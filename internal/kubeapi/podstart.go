package kubeapi

import (
	"context"
	"fmt"
	"regexp"
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

// withEvent fills e's message from the latest informative Warning event
// about its pod (the kubelet's "Failed to pull image "x": ... not found"
// says more than the container state's back-off). A failed lookup, or no
// such event, leaves the state's message.
func (c *Client) withEvent(ctx context.Context, ns string, e *PodStartError) *PodStartError {
	l, err := c.cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=Pod,involvedObject.name=" + e.Pod,
	})
	if err != nil {
		return e
	}
	if msg := eventMessage(l.Items, e.Pod, e.Message); msg != "" {
		e.Message = msg
	}
	return e
}

// eventMessage is the message a PodStartError should carry, given the
// events of the namespace and the state's own message: the latest
// informative Warning event's (and a crash loop's last exit), else the
// state's, else the latest Warning event's whatever it says. Pure.
func eventMessage(evs []corev1.Event, pod, stateMsg string) string {
	if ev := latestWarning(evs, pod, true); ev != nil {
		return joinNonEmpty("; ", ev.Message, lastExit(stateMsg))
	}
	if stateMsg != "" {
		return stateMsg
	}
	if ev := latestWarning(evs, pod, false); ev != nil {
		return ev.Message
	}
	return ""
}

// lastExit keeps the "last exit code" part of a crash loop's message.
func lastExit(msg string) string {
	if i := strings.Index(msg, "last exit code"); i >= 0 {
		return msg[i:]
	}
	return ""
}

// bareError matches the kubelet's events that only repeat the waiting
// reason ("Error: ErrImagePull", "Error: ImagePullBackOff").
var bareError = regexp.MustCompile(`^Error: [A-Za-z]+$`)

// notAboutStart are the reasons of Warning events the kubelet gives a
// pod that say nothing of why its container cannot start: a node
// without cluster DNS (MissingClusterDNS, DNSConfigForming) warns at
// every pod's sync.
var notAboutStart = map[string]bool{"MissingClusterDNS": true, "DNSConfigForming": true}

// latestWarning picks the latest Warning event about pod; informative
// leaves out the mere back-offs (BackOff: "Back-off pulling image"),
// the warnings not about the start (notAboutStart) and the bare
// "Error: REASON" events, whose cause is in the event before them. Pure.
func latestWarning(evs []corev1.Event, pod string, informative bool) *corev1.Event {
	var best *corev1.Event
	for i := range evs {
		ev := &evs[i]
		if ev.Type != corev1.EventTypeWarning || ev.InvolvedObject.Name != pod || (ev.InvolvedObject.Kind != "" && ev.InvolvedObject.Kind != "Pod") {
			continue // the fake clientset ignores field selectors
		}
		if informative && (ev.Reason == "BackOff" || notAboutStart[ev.Reason] || bareError.MatchString(ev.Message)) {
			continue
		}
		if best == nil || eventTimeNs(ev) >= eventTimeNs(best) {
			best = ev
		}
	}
	return best
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
