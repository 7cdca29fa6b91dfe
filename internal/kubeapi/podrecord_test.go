package kubeapi

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/shutdownlab/shutdownlab/record"
)

func TestPodTrackLifecycle(t *testing.T) {
	var tr podTrack
	// Seen pending, then running, then ready.
	tr.observe(pod("a"), 10, false)
	tr.observe(pod("a", running(1001)), 20, false)
	tr.observe(pod("a", running(1001), ready(true)), 30, false)
	tr.observe(pod("a", running(1001), ready(true)), 35, false) // nothing new
	// Deleted (grace 30 s, the server's deletionTimestamp 1030), not ready.
	tr.observe(pod("a", running(1001), ready(true), deleting(1030, 30)), 40, false)
	tr.observe(pod("a", running(1001), ready(false), deleting(1030, 30)), 50, false)
	// Its container exits; a later deletion with grace 0 changes nothing recorded.
	tr.observe(pod("a", terminated(143, "Error", 1003), ready(false), deleting(1003, 0)), 60, false)
	tr.observe(pod("a", terminated(143, "Error", 1003), ready(false), deleting(1003, 0)), 70, true)

	want := record.KubePod{
		Name: "a", UID: "uid-a", IP: "10.88.0.5", Node: "node-1", TemplateHash: "h1",
		FirstSeenNs: 10, CreatedNs: 1000e9,
		RunningNs: 20, StartedAtNs: 1001e9,
		ReadyNs: 30, NotReadyNs: 50,
		DeletionSeenNs: 40, DeletionNs: 1030e9, GraceS: ptr(30),
		TerminatedNs: 60, FinishedAtNs: 1003e9, ExitCode: ptr(143), Reason: "Error",
		GoneNs: 70,
	}
	if got, w := js(tr.kp), js(want); got != w {
		t.Errorf("got  %s\nwant %s", got, w)
	}
}

func TestPodTrackRestarts(t *testing.T) {
	var tr podTrack
	// Seen terminated straight away: started at from the terminated state.
	tr.observe(pod("a", terminated(1, "Error", 1003)), 10, false)
	// Restarted: running again, the last termination the same one.
	restarted := func(p *corev1.Pod) {
		running(1005)(p)
		cs := &p.Status.ContainerStatuses[0]
		cs.ContainerID = "c://2"
		cs.RestartCount = 1
		cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: tm(1003), ContainerID: "c://1"}
	}
	tr.observe(pod("a", restarted), 20, false)
	if tr.kp.TerminatedNs != 10 || *tr.kp.ExitCode != 1 || tr.kp.Restarts != 1 || tr.kp.RunningNs != 20 || tr.kp.StartedAtNs != 1001e9 {
		t.Errorf("after the restart: %s", js(tr.kp))
	}
	// It crashes again, seen only through lastState after a second restart:
	// the record follows the latest termination.
	again := func(p *corev1.Pod) {
		running(1009)(p)
		cs := &p.Status.ContainerStatuses[0]
		cs.ContainerID = "c://3"
		cs.RestartCount = 2
		cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled", FinishedAt: tm(1008), ContainerID: "c://2"}
	}
	tr.observe(pod("a", again), 30, false)
	if tr.kp.TerminatedNs != 30 || *tr.kp.ExitCode != 137 || tr.kp.Reason != "OOMKilled" || tr.kp.FinishedAtNs != 1008e9 || tr.kp.Restarts != 2 {
		t.Errorf("after the second crash: %s", js(tr.kp))
	}
}

func TestPodTrackNotReadyBeforeReady(t *testing.T) {
	var tr podTrack
	// Not ready while starting is not "not ready after ready".
	tr.observe(pod("a", running(1001), ready(false)), 10, false)
	if tr.kp.NotReadyNs != 0 || tr.kp.ReadyNs != 0 {
		t.Errorf("%s", js(tr.kp))
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
