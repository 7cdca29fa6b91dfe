package kubeapi

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWaitPodRunning(t *testing.T) {
	noLeak(t)
	c, cs := newFake(t, pod("agent", waiting("ContainerCreating", "")))
	ctx := ctxT(t)
	after(t, 100*time.Millisecond, func() error {
		_, err := cs.CoreV1().Pods(testNS).UpdateStatus(ctx, pod("agent", running(1001)), metav1.UpdateOptions{})
		return err
	})
	if err := c.WaitPodRunning(ctx, testNS, "agent", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// Already terminated counts as started.
	c, _ = newFake(t, pod("agent", terminated(0, "Completed", 1002)))
	if err := c.WaitPodRunning(ctx, testNS, "agent", time.Second); err != nil {
		t.Error(err)
	}
}

func TestWaitPodRunningFails(t *testing.T) {
	noLeak(t)
	c, _ := newFake(t, pod("agent", waiting("InvalidImageName", `couldn't parse image name "A:b"`)),
		warning("e1", "agent", "InspectFailed", `Failed to apply default image tag "A:b": invalid reference format`, 1003))
	ctx := ctxT(t)
	start := time.Now()
	err := c.WaitPodRunning(ctx, testNS, "agent", 10*time.Second)
	var pse *PodStartError
	if !errors.As(err, &pse) || pse.Reason != "InvalidImageName" || !strings.Contains(pse.Message, "invalid reference format") {
		t.Errorf("got %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
	err = c.WaitPodRunning(ctx, testNS, "none", time.Second)
	if err == nil || !strings.Contains(err.Error(), "pod run-1/none is not there") {
		t.Errorf("missing pod: %v", err)
	}
	err = c.WaitPodRunning(ctx, testNS, "agent", 0)
	if err == nil {
		t.Error("no timeout: no error")
	}
}

func TestWaitPodExit(t *testing.T) {
	noLeak(t)
	ctx := ctxT(t)
	lastState := func(p *corev1.Pod) {
		running(1010)(p)
		p.Status.ContainerStatuses[0].RestartCount = 1
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled", FinishedAt: tm(1009)}
	}
	tests := []struct {
		name   string
		pod    *corev1.Pod // the pod as it is
		change func(c *Client) error
		want   PodExit
	}{
		// The container exits while we wait.
		{"exits", pod("p", running(1001)), func(c *Client) error {
			_, err := c.cs.CoreV1().Pods(testNS).UpdateStatus(ctx, pod("p", terminated(143, "Error", 1005)), metav1.UpdateOptions{})
			return err
		}, PodExit{Exited: true, Code: 143, Reason: "Error", FinishedAtNs: 1005e9}},
		// It exited and was restarted before we looked: lastState says how.
		{"restarted", pod("p", lastState), nil, PodExit{Exited: true, Code: 137, Reason: "OOMKilled", OOMKilled: true, FinishedAtNs: 1009e9}},
		// The pod goes without our seeing its termination.
		{"gone", pod("p", running(1001)), func(c *Client) error {
			return c.cs.CoreV1().Pods(testNS).Delete(ctx, "p", metav1.DeleteOptions{})
		}, PodExit{Gone: true}},
		// Still running at the timeout: no exit, no error.
		{"timeout", pod("p", running(1001)), nil, PodExit{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newFake(t, tt.pod)
			if tt.change != nil {
				after(t, 100*time.Millisecond, func() error { return tt.change(c) })
			}
			got, err := c.WaitPodExit(ctx, testNS, "p", 400*time.Millisecond)
			if err != nil || got != tt.want {
				t.Errorf("got %+v %v, want %+v", got, err, tt.want)
			}
		})
	}
	// A pod that cannot start will not exit either: said at once.
	c, _ := newFake(t, pod("p", waiting("ErrImageNeverPull", "never")))
	if _, err := c.WaitPodExit(ctx, testNS, "p", 5*time.Second); !errors.As(err, new(*PodStartError)) {
		t.Errorf("start failure: %v", err)
	}
	// The caller's context ending is an error, not a timeout.
	cctx, cancel := contextWithCancelAfter(50 * time.Millisecond)
	defer cancel()
	c, _ = newFake(t, pod("p", running(1001)))
	if _, err := c.WaitPodExit(cctx, testNS, "p", 5*time.Second); err == nil {
		t.Error("cancelled: no error")
	}
}
