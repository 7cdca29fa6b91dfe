package kubeapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestStartFailure(t *testing.T) {
	unschedulable := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, Message: "0/1 nodes are available: 1 Insufficient cpu."}}
	}
	crashLoop := func(p *corev1.Pod) {
		waiting("CrashLoopBackOff", "back-off 10s restarting failed container=app")(p)
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}
	}
	initConfigError := func(p *corev1.Pod) {
		p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "init", State: corev1.ContainerState{
			Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: `secret "s" not found`}}}}
	}
	failed := func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodFailed
		p.Status.Reason = "Evicted"
		p.Status.Message = "The node was low on resource: memory."
	}
	failedExit := func(p *corev1.Pod) {
		terminated(3, "Error", 1005)(p)
		p.Status.Phase = corev1.PodFailed
	}
	tests := []struct {
		name   string
		pod    *corev1.Pod
		reason string // "" no failure
		msg    string
	}{
		// Pending with no status yet: still starting.
		{"pending", pod("p"), "", ""},
		// The image is being pulled: not a failure.
		{"container creating", pod("p", waiting("ContainerCreating", "")), "", ""},
		// Running: not a failure.
		{"running", pod("p", running(1001)), "", ""},
		// Each of the kubelet's reasons that need someone to change something.
		{"ErrImagePull", pod("p", waiting("ErrImagePull", `failed to pull image "x": not found`)), "ErrImagePull", `failed to pull image "x": not found`},
		{"ImagePullBackOff", pod("p", waiting("ImagePullBackOff", `Back-off pulling image "x"`)), "ImagePullBackOff", `Back-off pulling image "x"`},
		{"InvalidImageName", pod("p", waiting("InvalidImageName", "bad")), "InvalidImageName", "bad"},
		{"ErrImageNeverPull", pod("p", waiting("ErrImageNeverPull", "never")), "ErrImageNeverPull", "never"},
		{"CreateContainerError", pod("p", waiting("CreateContainerError", "ce")), "CreateContainerError", "ce"},
		{"RunContainerError", pod("p", waiting("RunContainerError", "re")), "RunContainerError", "re"},
		// A crash loop says the last exit too.
		{"CrashLoopBackOff", pod("p", crashLoop), "CrashLoopBackOff", "back-off 10s restarting failed container=app; last exit code 2 (Error)"},
		// An init container's failure counts.
		{"init container", pod("p", initConfigError), "CreateContainerConfigError", `secret "s" not found`},
		// The scheduler cannot place it.
		{"unschedulable", pod("p", unschedulable), "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu."},
		// A failed pod, with the pod's own reason.
		{"failed phase", pod("p", failed), "Evicted", "The node was low on resource: memory."},
		// A failed pod without a message says its container's exit.
		{"failed exit", pod("p", failedExit), "Failed", "container exited with code 3 (Error)"},
		// Being deleted, a pod's failures are its termination, not a start failure.
		{"deleting failed", pod("p", failed, deleting(1010, 30)), "", ""},
		{"deleting crash loop", pod("p", crashLoop, deleting(1010, 30)), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startFailure(tt.pod)
			if tt.reason == "" {
				if e != nil {
					t.Fatalf("got %v, want no failure", e)
				}
				return
			}
			if e == nil {
				t.Fatalf("got no failure, want %s", tt.reason)
			}
			if e.Pod != "p" || e.Reason != tt.reason || e.Message != tt.msg {
				t.Errorf("got %+v, want reason %q message %q", *e, tt.reason, tt.msg)
			}
		})
	}
}

func TestPodStartErrorText(t *testing.T) {
	e := &PodStartError{Pod: "target-abc", Reason: "ErrImagePull", Message: `failed to pull image "x": not found`}
	if got, want := e.Error(), `pod target-abc: ErrImagePull: failed to pull image "x": not found`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (&PodStartError{Pod: "p", Reason: "Failed"}).Error(); got != "pod p: Failed" {
		t.Errorf("got %q", got)
	}
}

func TestPodsFailure(t *testing.T) {
	unsched := pod("new", func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable"}}
	})
	old := pod("old", running(1000), deleting(1010, 30))
	pull := pod("bad", waiting("ErrImagePull", "x"))
	tests := []struct {
		name string
		pods []*corev1.Pod
		want string // failing pod, "" none
	}{
		// An unschedulable pod alone cannot start.
		{"unschedulable alone", []*corev1.Pod{unsched}, "new"},
		// Beside a terminating pod it may be waiting for that pod's resources.
		{"unschedulable during termination", []*corev1.Pod{unsched, old}, ""},
		// Other failures count whatever else terminates.
		{"pull failure during termination", []*corev1.Pod{old, pull}, "bad"},
		{"none", []*corev1.Pod{old}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := podsFailure(tt.pods)
			got := ""
			if e != nil {
				got = e.Pod
			}
			if got != tt.want {
				t.Errorf("got %q (%v), want %q", got, e, tt.want)
			}
		})
	}
}

func TestEventMessage(t *testing.T) {
	failedPull := warning("e1", "p", "Failed", `Failed to pull image "x": not found`, 1005)
	bare := warning("e2", "p", "Failed", "Error: ErrImagePull", 1006)
	backoff := warning("e3", "p", "BackOff", `Back-off pulling image "x"`, 1010)
	bareBackoff := warning("e4", "p", "Failed", "Error: ImagePullBackOff", 1011)
	other := warning("e5", "q", "Failed", "another pod", 1020)
	normal := warning("e6", "p", "Pulling", "Pulling image", 1030)
	normal.Type = corev1.EventTypeNormal
	older := warning("e7", "p", "Failed", "older failure", 1001)
	crashed := warning("e8", "p", "BackOff", "Back-off restarting failed container app", 1040)
	dns := warning("e9", "p", "MissingClusterDNS", `pod: "p". kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.`, 1050)
	tests := []struct {
		name  string
		evs   []*corev1.Event
		state string // the container state's message
		want  string
	}{
		// The kubelet's sequence for a missing image: its cause wins over
		// the back-off and the bare "Error: REASON" events after it.
		{"pull failure", []*corev1.Event{failedPull, bare, backoff, bareBackoff}, "rpc error", `Failed to pull image "x": not found`},
		// A node's DNS warning, later than the pull failure, is not
		// about the start (the kit's kubelet has no cluster DNS).
		{"pull failure after a DNS warning", []*corev1.Event{failedPull, bare, dns}, "rpc error", `Failed to pull image "x": not found`},
		// The latest informative event wins.
		{"latest failure", []*corev1.Event{older, failedPull}, "", `Failed to pull image "x": not found`},
		// Only back-offs: the state's message says more.
		{"state over back-off", []*corev1.Event{backoff, bareBackoff}, `Back-off pulling image "x": ErrImagePull: not found`, `Back-off pulling image "x": ErrImagePull: not found`},
		// Nothing else: the back-off it is.
		{"back-off alone", []*corev1.Event{backoff}, "", `Back-off pulling image "x"`},
		// A crash loop keeps its last exit beside an informative event.
		{"crash loop", []*corev1.Event{crashed, older}, "back-off 10s; last exit code 2 (Error)", "older failure; last exit code 2 (Error)"},
		// Other pods' events and Normal events are not about the failure.
		{"others", []*corev1.Event{other, normal}, "state", "state"},
		{"nothing", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var evs []corev1.Event
			for _, e := range tt.evs {
				evs = append(evs, *e)
			}
			if got := eventMessage(evs, "p", tt.state); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEventTimeNs(t *testing.T) {
	ev := warning("e", "p", "Failed", "m", 1005)
	if got := eventTimeNs(ev); got != 1005e9 {
		t.Errorf("lastTimestamp: got %d", got)
	}
	ev.EventTime.Time = tm(1007).Time
	if got := eventTimeNs(ev); got != 1007e9 {
		t.Errorf("eventTime over lastTimestamp: got %d", got)
	}
	ev.Series = &corev1.EventSeries{Count: 3, LastObservedTime: ev.EventTime}
	ev.Series.LastObservedTime.Time = tm(1009).Time
	if got := eventTimeNs(ev); got != 1009e9 {
		t.Errorf("series: got %d", got)
	}
}
