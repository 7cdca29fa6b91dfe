package kubeapi

import (
	"context"
	"runtime"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

const testNS = "run-1"

// newFake is a Client over a fake clientset holding objs.
func newFake(t *testing.T, objs ...k8sruntime.Object) (*Client, *fake.Clientset) {
	t.Helper()
	cs := fake.NewSimpleClientset(objs...)
	c := New(cs, Info{Context: "test", Server: "https://fake", ServerVersion: "v1.34.4"})
	c.poll = 10 * time.Millisecond
	return c, cs
}

// noLeak fails t when goroutines started during the test are still there
// at its end (after a short settling time).
func noLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		var now int
		for range 100 {
			if now = runtime.NumGoroutine(); now <= before {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		buf := make([]byte, 1<<16)
		n := runtime.Stack(buf, true)
		t.Errorf("goroutines: %d before, %d after\n%s", before, now, buf[:n])
	})
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// after runs f after d in the background, failing t on its error; the
// test waits for it at its end.
func after(t *testing.T, d time.Duration, f func() error) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(d)
		if err := f(); err != nil {
			t.Errorf("background change: %v", err)
		}
	}()
	t.Cleanup(func() { <-done })
}

func ptr[T any](v T) *T { return &v }

func tm(sec int64) metav1.Time { return metav1.Unix(sec, 0) }

// pod is a pod of the target in testNS with one container "app".
func pod(name string, mods ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID("uid-" + name),
			Labels: map[string]string{"app": "target", "pod-template-hash": "h1"}, CreationTimestamp: tm(1000)},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "img"}}, NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	for _, m := range mods {
		m(p)
	}
	return p
}

func waiting(reason, msg string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}}
	}
}

func running(startSec int64) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodRunning
		p.Status.PodIP = "10.88.0.5"
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", ContainerID: "c://1",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: tm(startSec)}}}}
	}
}

func ready(v bool) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		s := corev1.ConditionFalse
		if v {
			s = corev1.ConditionTrue
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: s}}
	}
}

func terminated(code int32, reason string, finishedSec int64) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", ContainerID: "c://1",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: tm(1001), FinishedAt: tm(finishedSec), ContainerID: "c://1"}}}}
	}
}

func deleting(atSec, grace int64) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		ts := tm(atSec)
		p.DeletionTimestamp = &ts
		p.DeletionGracePeriodSeconds = &grace
	}
}

// deployment is Deployment "target" in testNS selecting app=target.
func deployment(replicas int32, mods ...func(*appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "target", Namespace: testNS, Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "target"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "target"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "img:1"}}},
			},
		},
	}
	for _, m := range mods {
		m(d)
	}
	return d
}

func status(observed int64, replicas, updated, ready, available int32) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) {
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: observed, Replicas: replicas,
			UpdatedReplicas: updated, ReadyReplicas: ready, AvailableReplicas: available}
	}
}

func warning(name, podName, reason, msg string, lastSec int64) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: testNS, UID: types.UID("uid-" + name)},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: podName, Namespace: testNS},
		Type:           corev1.EventTypeWarning, Reason: reason, Message: msg, Count: 1, LastTimestamp: tm(lastSec),
	}
}

// contextWithCancelAfter is a context its caller's test cancels after d.
func contextWithCancelAfter(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	t := time.AfterFunc(d, cancel)
	return ctx, func() { t.Stop(); cancel() }
}
