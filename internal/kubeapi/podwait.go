package kubeapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodExit is how a pod's container ended, as WaitPodExit saw it.
type PodExit struct {
	// Exited is true once the container was seen terminated; false when
	// the wait reached its timeout, or the pod went before its
	// termination was seen.
	Exited bool
	// Code and Reason are the terminated state's exit code and reason
	// ("Completed", "Error", "OOMKilled"); OOMKilled says the latter.
	Code      int
	Reason    string
	OOMKilled bool
	// FinishedAtNs is the server's finishedAt (whole seconds, Unix ns).
	FinishedAtNs int64
	// Gone is true when the pod was no longer in the API.
	Gone bool
}

// podWait watches pod ns/name until cond holds, it cannot start, or the
// timeout; cond gets nil once the pod is gone.
func (c *Client) podWait(ctx context.Context, ns, name, what string, timeout time.Duration, cond func(p *corev1.Pod) (bool, error)) error {
	w := newWaiter(what, timeout)
	w.explain = c.explainer(ctx, ns)
	pods := w.watch("pod "+ns+"/"+name, c.pods(ns), metav1.ListOptions{FieldSelector: "metadata.name=" + name}, named(name))
	check := func() (bool, error) {
		o, ok := pods.objs[name]
		if !ok {
			return cond(nil)
		}
		return cond(o.(*corev1.Pod))
	}
	state := func() string {
		if o, ok := pods.objs[name]; ok {
			return podSummary(o.(*corev1.Pod))
		}
		return "no pod " + name
	}
	_, err := w.run(ctx, check, state)
	return err
}

// WaitPodRunning waits until every container of pod ns/name is running,
// or already terminated. A pod that cannot start ends it at once with a
// *PodStartError; a pod that is not there (or goes) is an error.
func (c *Client) WaitPodRunning(ctx context.Context, ns, name string, timeout time.Duration) error {
	return c.podWait(ctx, ns, name, "pod "+ns+"/"+name+" running", timeout, func(p *corev1.Pod) (bool, error) {
		if p == nil {
			return false, fmt.Errorf("pod %s/%s is not there", ns, name)
		}
		if e := startFailure(p); e != nil {
			return false, e
		}
		return containersStarted(p, ""), nil
	})
}

// containersStarted says whether container name ("": every container)
// of p is running or terminated. Pure.
func containersStarted(p *corev1.Pod, name string) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	want := len(p.Spec.Containers)
	if name != "" {
		want = 1
	}
	n := 0
	for _, cs := range p.Status.ContainerStatuses {
		if name != "" && cs.Name != name {
			continue
		}
		if cs.State.Running != nil || cs.State.Terminated != nil || cs.LastTerminationState.Terminated != nil {
			n++
		}
	}
	return n > 0 && n >= want
}

// WaitPodExit waits until pod ns/name's container (its only one, else
// its first) terminated, or the pod is gone, at most timeout: at the
// timeout it returns Exited false and no error. A termination the pod's
// restart policy already followed by a restart counts (lastState). A pod
// that cannot start ends it at once with a *PodStartError.
func (c *Client) WaitPodExit(ctx context.Context, ns, name string, timeout time.Duration) (PodExit, error) {
	var exit PodExit
	err := c.podWait(ctx, ns, name, "pod "+ns+"/"+name+" to exit", timeout, func(p *corev1.Pod) (bool, error) {
		if p == nil {
			exit.Gone = true
			return true, nil
		}
		if t := mainTerminated(p); t != nil {
			exit = exitOf(t)
			return true, nil
		}
		if e := startFailure(p); e != nil {
			return false, e
		}
		return false, nil
	})
	if errors.Is(err, errTimeout) && ctx.Err() == nil {
		return PodExit{}, nil
	}
	return exit, err
}

// mainContainer is the status of p's only (else first) container, nil
// before the kubelet reported one.
func mainContainer(p *corev1.Pod) *corev1.ContainerStatus {
	if len(p.Spec.Containers) > 0 {
		for i := range p.Status.ContainerStatuses {
			if p.Status.ContainerStatuses[i].Name == p.Spec.Containers[0].Name {
				return &p.Status.ContainerStatuses[i]
			}
		}
	}
	if len(p.Status.ContainerStatuses) > 0 {
		return &p.Status.ContainerStatuses[0]
	}
	return nil
}

// mainTerminated is the main container's latest termination: its state,
// else (restarted since) its last state.
func mainTerminated(p *corev1.Pod) *corev1.ContainerStateTerminated {
	cs := mainContainer(p)
	if cs == nil {
		return nil
	}
	if cs.State.Terminated != nil {
		return cs.State.Terminated
	}
	return cs.LastTerminationState.Terminated
}

func exitOf(t *corev1.ContainerStateTerminated) PodExit {
	e := PodExit{Exited: true, Code: int(t.ExitCode), Reason: t.Reason, OOMKilled: t.Reason == "OOMKilled"}
	if !t.FinishedAt.IsZero() {
		e.FinishedAtNs = t.FinishedAt.UnixNano()
	}
	return e
}
