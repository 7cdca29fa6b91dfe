package kubeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// RestartedAtAnnotation is the pod template annotation `kubectl rollout
// restart` sets to the time of the restart.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// DeletePod deletes pod ns/name with grace period grace (nil: the pod's
// terminationGracePeriodSeconds). sentNs is this host's clock just before
// the request was sent.
func (c *Client) DeletePod(ctx context.Context, ns, name string, grace *int64) (sentNs int64, err error) {
	o := metav1.DeleteOptions{GracePeriodSeconds: grace}
	sentNs = time.Now().UnixNano()
	if err := c.cs.CoreV1().Pods(ns).Delete(ctx, name, o); err != nil {
		return sentNs, fmt.Errorf("delete pod %s/%s: %w", ns, name, err)
	}
	return sentNs, nil
}

// RolloutRestart does what `kubectl rollout restart` does: a strategic
// merge patch setting the pod template's restartedAt annotation to now
// (RFC 3339), which makes the Deployment roll every pod. A paused
// Deployment is refused, as kubectl refuses it. sentNs is this host's
// clock just before the patch was sent.
func (c *Client) RolloutRestart(ctx context.Context, ns, deployment string) (sentNs int64, err error) {
	d, err := c.cs.AppsV1().Deployments(ns).Get(ctx, deployment, metav1.GetOptions{})
	if err != nil {
		return 0, fmt.Errorf("rollout restart deployment %s/%s: %w", ns, deployment, err)
	}
	if d.Spec.Paused {
		return 0, fmt.Errorf("rollout restart deployment %s/%s: it is paused (kubectl refuses it too: resume it first)", ns, deployment)
	}
	now := time.Now()
	patch := map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
		"annotations": map[string]string{RestartedAtAnnotation: now.Format(time.RFC3339)},
	}}}}
	return c.patchDeployment(ctx, ns, deployment, "rollout restart", patch)
}

// SetImage does what `kubectl set image deployment/D C=IMAGE` does: a
// strategic merge patch of the pod template's container (or init
// container) named container. A container the template lacks is refused.
// sentNs is this host's clock just before the patch was sent.
func (c *Client) SetImage(ctx context.Context, ns, deployment, container, image string) (sentNs int64, err error) {
	what := fmt.Sprintf("set image %s=%s", container, image)
	d, err := c.cs.AppsV1().Deployments(ns).Get(ctx, deployment, metav1.GetOptions{})
	if err != nil {
		return 0, fmt.Errorf("%s on deployment %s/%s: %w", what, ns, deployment, err)
	}
	field := ""
	for _, f := range []struct {
		name string
		cs   []corev1.Container
	}{{"containers", d.Spec.Template.Spec.Containers}, {"initContainers", d.Spec.Template.Spec.InitContainers}} {
		for _, ctr := range f.cs {
			if ctr.Name == container && field == "" {
				field = f.name
			}
		}
	}
	if field == "" {
		var names []string
		for _, ctr := range d.Spec.Template.Spec.Containers {
			names = append(names, ctr.Name)
		}
		return 0, fmt.Errorf("%s on deployment %s/%s: no container %q (it has %v)", what, ns, deployment, container, names)
	}
	patch := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		field: []map[string]string{{"name": container, "image": image}},
	}}}}
	return c.patchDeployment(ctx, ns, deployment, what, patch)
}

func (c *Client) patchDeployment(ctx context.Context, ns, name, what string, patch any) (int64, error) {
	b, err := json.Marshal(patch)
	if err != nil {
		return 0, fmt.Errorf("%s deployment %s/%s: %w", what, ns, name, err)
	}
	sentNs := time.Now().UnixNano()
	if _, err := c.cs.AppsV1().Deployments(ns).Patch(ctx, name, types.StrategicMergePatchType, b, metav1.PatchOptions{}); err != nil {
		return sentNs, fmt.Errorf("%s deployment %s/%s: %w", what, ns, name, err)
	}
	return sentNs, nil
}

// WaitRolloutComplete waits until Deployment ns/name's rollout is
// complete as `kubectl rollout status` decides it (its generation
// observed, every replica updated, no old replica, every updated replica
// available) and no pod of its selector is left terminating, at most
// timeout. doneNs is when the observation that completed it arrived (this
// host's clock). A new pod that cannot start ends it at once with a
// *PodStartError; a rollout past its progress deadline is an error.
func (c *Client) WaitRolloutComplete(ctx context.Context, ns, deployment string, timeout time.Duration) (doneNs int64, err error) {
	return c.deploymentWait(ctx, ns, deployment, "rollout of deployment "+ns+"/"+deployment, timeout,
		func(d *appsv1.Deployment, pods []*corev1.Pod) (bool, string, error) {
			done, why, err := rolloutComplete(d)
			if !done || err != nil {
				return done, why, err
			}
			var left []string
			for _, p := range pods {
				if p.DeletionTimestamp != nil {
					left = append(left, p.Name)
				}
			}
			if len(left) > 0 {
				return false, fmt.Sprintf("pods still terminating: %v", left), nil
			}
			return true, "", nil
		})
}
