package kubeapi

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// progressDeadlineExceeded is the Deployment controller's Progressing
// reason once spec.progressDeadlineSeconds passed without progress.
const progressDeadlineExceeded = "ProgressDeadlineExceeded"

// wantReplicas is spec.replicas, 1 when unset (the API's default).
func wantReplicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// deploymentAvailable says whether d's controller has seen its current
// spec and every replica it wants is of the current template, ready and
// available, with no other (old) replica left. waiting says what is
// missing; err is a rollout past its progress deadline. Pure.
func deploymentAvailable(d *appsv1.Deployment) (done bool, waiting string, err error) {
	if err := pastDeadline(d); err != nil {
		return false, "", err
	}
	st, want := d.Status, wantReplicas(d)
	switch {
	case d.Generation > st.ObservedGeneration:
		return false, fmt.Sprintf("generation %d not yet observed (observed %d)", d.Generation, st.ObservedGeneration), nil
	case st.UpdatedReplicas != want || st.ReadyReplicas != want || st.AvailableReplicas != want || st.Replicas != want:
		return false, replicaCounts(d), nil
	}
	return true, "", nil
}

// rolloutComplete decides as `kubectl rollout status` does
// (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go): the current
// generation observed, all replicas updated, no old replica left,
// every updated replica available. Pure.
func rolloutComplete(d *appsv1.Deployment) (done bool, waiting string, err error) {
	st := d.Status
	if d.Generation > st.ObservedGeneration {
		return false, fmt.Sprintf("generation %d not yet observed (observed %d)", d.Generation, st.ObservedGeneration), nil
	}
	if err := pastDeadline(d); err != nil {
		return false, "", err
	}
	switch {
	case d.Spec.Replicas != nil && st.UpdatedReplicas < *d.Spec.Replicas:
		return false, fmt.Sprintf("%d out of %d new replicas updated", st.UpdatedReplicas, *d.Spec.Replicas), nil
	case st.Replicas > st.UpdatedReplicas:
		return false, fmt.Sprintf("%d old replicas pending termination", st.Replicas-st.UpdatedReplicas), nil
	case st.AvailableReplicas < st.UpdatedReplicas:
		return false, fmt.Sprintf("%d of %d updated replicas available", st.AvailableReplicas, st.UpdatedReplicas), nil
	}
	return true, "", nil
}

func pastDeadline(d *appsv1.Deployment) error {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Reason == progressDeadlineExceeded {
			return fmt.Errorf("deployment %s exceeded its progress deadline: %s", d.Name, c.Message)
		}
	}
	return nil
}

func replicaCounts(d *appsv1.Deployment) string {
	st := d.Status
	return fmt.Sprintf("replicas %d/%d ready, %d updated, %d available, %d in all",
		st.ReadyReplicas, wantReplicas(d), st.UpdatedReplicas, st.AvailableReplicas, st.Replicas)
}

// podSummary is "name Phase (reason) ready terminating" for a timeout's
// account of the last state seen.
func podSummary(p *corev1.Pod) string {
	s := p.Name + " " + string(p.Status.Phase)
	var why []string
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			why = append(why, w.Reason)
		}
	}
	if len(why) > 0 {
		s += " (" + strings.Join(why, ", ") + ")"
	}
	if podReady(p) {
		s += " ready"
	}
	if p.DeletionTimestamp != nil {
		s += " terminating"
	}
	return s
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podsFailure is the first start failure among pods. An Unschedulable pod
// does not count while another pod of the set is terminating: the
// resources that one holds may be what the new pod waits for (a rolling
// update on a full node). Pure.
func podsFailure(pods []*corev1.Pod) *PodStartError {
	terminating := false
	for _, p := range pods {
		if p.DeletionTimestamp != nil {
			terminating = true
		}
	}
	for _, p := range pods {
		if e := startFailure(p); e != nil && !(terminating && e.Reason == corev1.PodReasonUnschedulable) {
			return e
		}
	}
	return nil
}

// deploymentWait watches Deployment ns/name and the pods of its selector
// until cond holds, a pod cannot start, or the timeout.
func (c *Client) deploymentWait(ctx context.Context, ns, name, what string, timeout time.Duration,
	cond func(d *appsv1.Deployment, pods []*corev1.Pod) (bool, string, error)) (int64, error) {
	d, err := c.cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return 0, fmt.Errorf("wait for %s: %w", what, err)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return 0, fmt.Errorf("wait for %s: selector: %w", what, err)
	}
	w := newWaiter(what, timeout)
	w.explain = c.explainer(ctx, ns)
	deps := w.watch("deployment "+ns+"/"+name, c.deployments(ns),
		metav1.ListOptions{FieldSelector: "metadata.name=" + name}, named(name))
	pods := w.watch("pods of deployment "+ns+"/"+name+" ("+sel.String()+")", c.pods(ns),
		metav1.ListOptions{LabelSelector: sel.String()}, selects(sel))
	var waiting string
	check := func() (bool, error) {
		o, ok := deps.objs[name]
		if !ok {
			return false, fmt.Errorf("deployment %s/%s was deleted", ns, name)
		}
		ps := podsOf(pods)
		if e := podsFailure(ps); e != nil {
			return false, e
		}
		done, why, err := cond(o.(*appsv1.Deployment), ps)
		waiting = why
		return done, err
	}
	state := func() string {
		var ps []string
		for _, p := range podsOf(pods) {
			ps = append(ps, podSummary(p))
		}
		s := waiting
		if o, ok := deps.objs[name]; ok {
			if rc := replicaCounts(o.(*appsv1.Deployment)); rc != s {
				s = joinNonEmpty("; ", s, rc)
			}
		}
		return joinNonEmpty("; ", s, "pods: "+orNone(strings.Join(ps, ", ")))
	}
	return w.run(ctx, check, state)
}

// WaitDeploymentAvailable waits until Deployment ns/name is available:
// its current generation observed, and updated, ready and available
// replicas all equal to spec.replicas with no other replica left. A pod
// that cannot start ends it at once with a *PodStartError.
func (c *Client) WaitDeploymentAvailable(ctx context.Context, ns, name string, timeout time.Duration) error {
	_, err := c.deploymentWait(ctx, ns, name, "deployment "+ns+"/"+name+" available", timeout,
		func(d *appsv1.Deployment, _ []*corev1.Pod) (bool, string, error) { return deploymentAvailable(d) })
	return err
}

// explainer completes a PodStartError with the pod's latest Warning
// event, within 5 s.
func (c *Client) explainer(ctx context.Context, ns string) func(*PodStartError) {
	return func(e *PodStartError) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		c.withEvent(ctx, ns, e)
	}
}

func named(name string) func(runtime.Object) bool {
	return func(o runtime.Object) bool { return nameOf(o) == name }
}

func selects(sel labels.Selector) func(runtime.Object) bool {
	return func(o runtime.Object) bool { return sel.Matches(labels.Set(labelsOf(o))) }
}

func podsOf(s *store) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range s.sorted() {
		out = append(out, o.(*corev1.Pod))
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
