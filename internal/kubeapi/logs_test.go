package kubeapi

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

func shortLogEnd(t *testing.T, d time.Duration) {
	old := logEndTimeout
	logEndTimeout = d
	t.Cleanup(func() { logEndTimeout = old })
}

func TestFollowLogsEnded(t *testing.T) {
	noLeak(t)
	c, cs := newFake(t, pod("agent", terminated(0, "Completed", 1005)))
	var buf bytes.Buffer
	if err := c.FollowLogs(ctxT(t), testNS, "agent", "app", &buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "fake logs" {
		t.Errorf("got %q", buf.String())
	}
	// The request follows the container asked for.
	var opts *corev1.PodLogOptions
	for _, a := range cs.Actions() {
		if a.GetSubresource() == "log" {
			opts = a.(k8stesting.GenericAction).GetValue().(*corev1.PodLogOptions)
		}
	}
	if opts == nil || !opts.Follow || opts.Container != "app" {
		t.Errorf("log options %+v", opts)
	}
}

func TestFollowLogsWaitsForStartAndEnd(t *testing.T) {
	noLeak(t)
	shortLogEnd(t, 2*time.Second)
	c, cs := newFake(t, pod("agent", waiting("ContainerCreating", "")))
	ctx := ctxT(t)
	var opened time.Time
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		opened = time.Now()
		return true, &k8sruntime.Unknown{Raw: []byte("{\"t\":1}\n{\"t\":2}\n")}, nil
	})
	started := time.Now()
	after(t, 100*time.Millisecond, func() error {
		_, err := cs.CoreV1().Pods(testNS).UpdateStatus(ctx, pod("agent", running(1001)), metav1.UpdateOptions{})
		return err
	})
	// The stream ends (the fake's at once), and the API shows the
	// container terminated a little later: that is the container ending.
	after(t, 300*time.Millisecond, func() error {
		_, err := cs.CoreV1().Pods(testNS).UpdateStatus(ctx, pod("agent", terminated(0, "Completed", 1005)), metav1.UpdateOptions{})
		return err
	})
	var buf bytes.Buffer
	if err := c.FollowLogs(ctx, testNS, "agent", "", &buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "{\"t\":1}\n{\"t\":2}\n" {
		t.Errorf("got %q", buf.String())
	}
	if opened.Sub(started) < 80*time.Millisecond {
		t.Errorf("stream opened %s after the call, before the container started", opened.Sub(started))
	}
}

func TestFollowLogsFailures(t *testing.T) {
	noLeak(t)
	shortLogEnd(t, 200*time.Millisecond)
	ctx := ctxT(t)
	// The container never starts: said at once.
	c, _ := newFake(t, pod("agent", waiting("ErrImagePull", "not found")))
	err := c.FollowLogs(ctx, testNS, "agent", "", &bytes.Buffer{})
	if !errors.As(err, new(*PodStartError)) || !strings.HasPrefix(err.Error(), "follow log of pod run-1/agent: ") {
		t.Errorf("start failure: %v", err)
	}
	// The stream ends while the container still runs: an error, not a
	// quiet end.
	c, _ = newFake(t, pod("agent", running(1001)))
	var buf bytes.Buffer
	err = c.FollowLogs(ctx, testNS, "agent", "", &buf)
	if err == nil || !strings.Contains(err.Error(), "stream ended while the container still runs") || buf.String() != "fake logs" {
		t.Errorf("early end: %v (%q)", err, buf.String())
	}
	// A pod gone after the stream: the container ended with it.
	c, cs := newFake(t, pod("agent", running(1001)))
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		if a.GetSubresource() == "log" {
			// Gone as the stream is served (the tracker: the fake's own lock is held here).
			return false, nil, cs.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("pods"), testNS, "agent")
		}
		return false, nil, nil
	})
	if err := c.FollowLogs(ctx, testNS, "agent", "", &bytes.Buffer{}); err != nil {
		t.Errorf("pod gone: %v", err)
	}
	// The writer's error is returned.
	c, _ = newFake(t, pod("agent", terminated(0, "Completed", 1005)))
	err = c.FollowLogs(ctx, testNS, "agent", "", failWriter{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("writer: %v", err)
	}
	// No such pod.
	if err := c.FollowLogs(ctx, testNS, "none", "", &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "not there") {
		t.Errorf("missing: %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestContainerEnded(t *testing.T) {
	two := func(p *corev1.Pod) {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "side"})
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: "side",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
	}
	succeeded := func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }
	tests := []struct {
		name      string
		pod       *corev1.Pod
		container string
		want      bool
	}{
		{"running", pod("p", running(1)), "", false},
		{"terminated", pod("p", terminated(0, "Completed", 2)), "", true},
		{"named terminated", pod("p", terminated(0, "Completed", 2), two), "app", true},
		{"named running", pod("p", terminated(0, "Completed", 2), two), "side", false},
		{"unknown name", pod("p", running(1)), "x", false},
		{"pod succeeded", pod("p", succeeded), "", true},
	}
	for _, tt := range tests {
		if got := containerEnded(tt.pod, tt.container); got != tt.want {
			t.Errorf("%s: got %v", tt.name, got)
		}
	}
}
