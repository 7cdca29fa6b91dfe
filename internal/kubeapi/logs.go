package kubeapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Bounds of FollowLogs' waits besides ctx: for the container to start
// (long: an image pull on a slow node), and, after the stream ended, for
// the API to show the container terminated (the kubelet ends the stream
// at the exit and reports the status at its next relist, about 1 s).
var (
	logStartTimeout = 10 * time.Minute
	logEndTimeout   = 5 * time.Second
)

// FollowLogs copies the log of container (""; the pod's only one) of pod
// ns/pod into w, stdout and stderr interleaved as the API serves them,
// from its start until the container ends, the pod goes, or ctx ends.
// It first waits (ctx, and at most 10 minutes) for the container to have
// started; a pod that cannot start ends it with a *PodStartError. It
// returns nil when the stream ended because the container ended (or the
// pod went); an error when the stream broke while the container still
// ran, or ctx's error. A deleted pod's log goes with it: follow from the
// start.
func (c *Client) FollowLogs(ctx context.Context, ns, pod, container string, w io.Writer) error {
	what := fmt.Sprintf("log of pod %s/%s", ns, pod)
	if container != "" {
		what += " container " + container
	}
	err := c.podWait(ctx, ns, pod, what+" to start", logStartTimeout, func(p *corev1.Pod) (bool, error) {
		if p == nil {
			return false, fmt.Errorf("pod %s/%s is not there", ns, pod)
		}
		if containersStarted(p, container) {
			return true, nil
		}
		if e := startFailure(p); e != nil {
			return false, e
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("follow %s: %w", what, err)
	}
	req := c.cs.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Container: container, Follow: true})
	rc, err := req.Stream(ctx)
	if err != nil {
		return fmt.Errorf("follow %s: %w", what, err)
	}
	_, cerr := io.Copy(tagWrites{w}, rc)
	rc.Close()
	if ctx.Err() != nil {
		return fmt.Errorf("follow %s: %w", what, ctx.Err())
	}
	var werr *writeError
	if errors.As(cerr, &werr) {
		return fmt.Errorf("follow %s: %w", what, werr.err)
	}
	// Did the stream end because the container did?
	ended := false
	err = c.podWait(ctx, ns, pod, what+" to end", logEndTimeout, func(p *corev1.Pod) (bool, error) {
		if p == nil || containerEnded(p, container) {
			ended = true
			return true, nil
		}
		return false, nil
	})
	switch {
	case ended:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("follow %s: %w", what, ctx.Err())
	case cerr != nil:
		return fmt.Errorf("follow %s: stream broke while the container runs: %w", what, cerr)
	case err != nil && !errors.Is(err, errTimeout):
		return fmt.Errorf("follow %s: stream ended; %w", what, err)
	}
	return fmt.Errorf("follow %s: stream ended while the container still runs (%s later)", what, logEndTimeout)
}

// writeError marks io.Copy's error as the writer's, not the stream's.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// tagWrites wraps a writer's errors in writeError.
type tagWrites struct{ w io.Writer }

func (t tagWrites) Write(b []byte) (int, error) {
	n, err := t.w.Write(b)
	if err != nil {
		return n, &writeError{err}
	}
	return n, nil
}

// containerEnded says whether container name ("": the main one) of p
// is terminated, or p has finished. Pure.
func containerEnded(p *corev1.Pod, name string) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	if name == "" {
		cs := mainContainer(p)
		return cs != nil && cs.State.Terminated != nil
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == name {
			return cs.State.Terminated != nil
		}
	}
	return false
}
