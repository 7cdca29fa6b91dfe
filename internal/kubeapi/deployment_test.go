package kubeapi

import (
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func deadline(d *appsv1.Deployment) {
	d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
		Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "target-h2" has timed out progressing.`}}
}

func generation(g int64) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Generation = g }
}

func TestDeploymentStatus(t *testing.T) {
	tests := []struct {
		name                string
		d                   *appsv1.Deployment
		available, complete bool
		err                 bool
	}{
		// All replicas of the current template ready and available.
		{"available", deployment(2, status(1, 2, 2, 2, 2)), true, true, false},
		// The controller has not seen the latest spec: neither, whatever the counts.
		{"generation not observed", deployment(2, generation(2), status(1, 2, 2, 2, 2)), false, false, false},
		// Fresh: nothing updated yet.
		{"nothing yet", deployment(2, status(1, 0, 0, 0, 0)), false, false, false},
		// A surge: an old replica still counted beside the new ones.
		{"old replica left", deployment(2, status(1, 3, 2, 3, 3)), false, false, false},
		// Updated but one not yet available.
		{"not all available", deployment(2, status(1, 2, 2, 2, 1)), false, false, false},
		// Available but one not ready (kubectl only looks at availability).
		{"available not ready", deployment(2, status(1, 2, 2, 1, 2)), false, true, false},
		// Scaled to zero: done at once.
		{"zero replicas", deployment(0, status(1, 0, 0, 0, 0)), true, true, false},
		// Past its progress deadline: an error for both.
		{"deadline", deployment(2, status(1, 2, 1, 1, 1), deadline), false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			av, why, err := deploymentAvailable(tt.d)
			if av != tt.available || (err != nil) != tt.err || (!av && !tt.err && why == "") {
				t.Errorf("available: got %v %q %v, want %v (error %v)", av, why, err, tt.available, tt.err)
			}
			co, why, err := rolloutComplete(tt.d)
			if co != tt.complete || (err != nil) != tt.err || (!co && !tt.err && why == "") {
				t.Errorf("complete: got %v %q %v, want %v (error %v)", co, why, err, tt.complete, tt.err)
			}
		})
	}
}

func TestWaitDeploymentAvailable(t *testing.T) {
	noLeak(t)
	c, cs := newFake(t, deployment(2, status(1, 0, 0, 0, 0)))
	ctx := ctxT(t)
	after(t, 100*time.Millisecond, func() error {
		_, err := cs.CoreV1().Pods(testNS).Create(ctx, pod("target-a", running(1001), ready(true)), metav1.CreateOptions{})
		return err
	})
	after(t, 200*time.Millisecond, func() error {
		_, err := cs.AppsV1().Deployments(testNS).UpdateStatus(ctx, deployment(2, status(1, 2, 2, 2, 2)), metav1.UpdateOptions{})
		return err
	})
	start := time.Now()
	if err := c.WaitDeploymentAvailable(ctx, testNS, "target", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("done after %s, before it was available", d)
	}
}

func TestWaitDeploymentImagePull(t *testing.T) {
	noLeak(t)
	c, cs := newFake(t, deployment(1, status(1, 1, 1, 0, 0)), pod("target-a"),
		warning("e1", "target-a", "Failed", `Failed to pull image "127.0.0.1:5000/x:1": not found`, 1005),
		warning("e2", "target-a", "BackOff", `Back-off pulling image "127.0.0.1:5000/x:1"`, 1006))
	ctx := ctxT(t)
	after(t, 100*time.Millisecond, func() error {
		_, err := cs.CoreV1().Pods(testNS).UpdateStatus(ctx, pod("target-a", waiting("ErrImagePull", "rpc error: not found")), metav1.UpdateOptions{})
		return err
	})
	start := time.Now()
	err := c.WaitDeploymentAvailable(ctx, testNS, "target", 10*time.Second)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %s, not at once", d)
	}
	var pse *PodStartError
	if !errors.As(err, &pse) {
		t.Fatalf("got %v, want a PodStartError", err)
	}
	want := `wait for deployment run-1/target available: pod target-a: ErrImagePull: Failed to pull image "127.0.0.1:5000/x:1": not found`
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
}

func TestWaitDeploymentTimeout(t *testing.T) {
	noLeak(t)
	c, _ := newFake(t, deployment(2, status(1, 2, 2, 1, 1)),
		pod("target-a", running(1001), ready(true)), pod("target-b", waiting("ContainerCreating", "")))
	err := c.WaitDeploymentAvailable(ctxT(t), testNS, "target", 200*time.Millisecond)
	if !errors.Is(err, errTimeout) {
		t.Fatalf("got %v", err)
	}
	want := "wait for deployment run-1/target available: timed out after 200ms; last seen: " +
		"replicas 1/2 ready, 2 updated, 1 available, 2 in all; pods: target-a Running ready, target-b Pending (ContainerCreating)"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
}

func TestWaitDeploymentContext(t *testing.T) {
	noLeak(t)
	c, _ := newFake(t, deployment(1, status(1, 0, 0, 0, 0)))
	ctx, cancel := contextWithCancelAfter(100 * time.Millisecond)
	defer cancel()
	err := c.WaitDeploymentAvailable(ctx, testNS, "target", 10*time.Second)
	if err == nil || errors.Is(err, errTimeout) || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("got %v", err)
	}
	if err := c.WaitDeploymentAvailable(ctxT(t), testNS, "none", time.Second); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing deployment: %v", err)
	}
	if err := c.WaitDeploymentAvailable(ctxT(t), testNS, "target", 0); err == nil {
		t.Error("no timeout: no error")
	}
}
