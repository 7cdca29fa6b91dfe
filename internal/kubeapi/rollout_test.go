package kubeapi

import (
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
)

func TestDeletePod(t *testing.T) {
	c, cs := newFake(t, pod("target-a"))
	before := time.Now().UnixNano()
	sent, err := c.DeletePod(ctxT(t), testNS, "target-a", ptr[int64](5))
	if err != nil {
		t.Fatal(err)
	}
	if sent < before || sent > time.Now().UnixNano() {
		t.Errorf("sent %d outside the call", sent)
	}
	acts := cs.Actions()
	del, ok := acts[len(acts)-1].(k8stesting.DeleteActionImpl)
	if !ok || del.Name != "target-a" || *del.DeleteOptions.GracePeriodSeconds != 5 {
		t.Errorf("action %+v", acts[len(acts)-1])
	}
	if _, err := c.DeletePod(ctxT(t), testNS, "target-a", nil); !apierrors.IsNotFound(err) || !strings.HasPrefix(err.Error(), "delete pod run-1/target-a: ") {
		t.Errorf("again: %v", err)
	}
}

// patches returns the patch requests cs received.
func patches(cs interface{ Actions() []k8stesting.Action }) []k8stesting.PatchAction {
	var out []k8stesting.PatchAction
	for _, a := range cs.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok {
			out = append(out, p)
		}
	}
	return out
}

func TestRolloutRestart(t *testing.T) {
	c, cs := newFake(t, deployment(2))
	ctx := ctxT(t)
	before := time.Now()
	sent, err := c.RolloutRestart(ctx, testNS, "target")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.GetDeployment(ctx, testNS, "target")
	at, err := time.Parse(time.RFC3339, d.Spec.Template.Annotations[RestartedAtAnnotation])
	if err != nil || at.Before(before.Truncate(time.Second)) || at.After(time.Now()) {
		t.Errorf("annotation %q (%v)", d.Spec.Template.Annotations[RestartedAtAnnotation], err)
	}
	if sent < before.UnixNano() || d.Spec.Template.Spec.Containers[0].Image != "img:1" || d.Spec.Template.Labels["app"] != "target" {
		t.Errorf("sent %d, template %+v", sent, d.Spec.Template)
	}
	// One strategic merge patch of the template's annotation, as kubectl sends.
	ps := patches(cs)
	if len(ps) != 1 || ps[0].GetPatchType() != types.StrategicMergePatchType ||
		!strings.HasPrefix(string(ps[0].GetPatch()), `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"`) {
		t.Errorf("patches %v", ps)
	}
	c, _ = newFake(t, deployment(2, func(d *appsv1.Deployment) { d.Spec.Paused = true }))
	if _, err := c.RolloutRestart(ctx, testNS, "target"); err == nil || !strings.Contains(err.Error(), "paused") {
		t.Errorf("paused: %v", err)
	}
	if _, err := c.RolloutRestart(ctx, testNS, "none"); !apierrors.IsNotFound(err) {
		t.Errorf("missing: %v", err)
	}
}

func TestSetImage(t *testing.T) {
	two := func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "side", Image: "side:1"})
		d.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "init:1"}}
	}
	c, cs := newFake(t, deployment(2, two))
	ctx := ctxT(t)
	if _, err := c.SetImage(ctx, testNS, "target", "app", "img:2"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetImage(ctx, testNS, "target", "init", "init:2"); err != nil {
		t.Fatal(err)
	}
	d, _ := c.GetDeployment(ctx, testNS, "target")
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 2 || spec.Containers[0].Image != "img:2" || spec.Containers[1].Image != "side:1" || spec.InitContainers[0].Image != "init:2" {
		t.Errorf("containers %+v init %+v", spec.Containers, spec.InitContainers)
	}
	if ps := patches(cs); len(ps) != 2 || string(ps[0].GetPatch()) != `{"spec":{"template":{"spec":{"containers":[{"image":"img:2","name":"app"}]}}}}` {
		t.Errorf("patches %v", ps)
	}
	_, err := c.SetImage(ctx, testNS, "target", "nope", "x")
	if err == nil || !strings.Contains(err.Error(), `no container "nope" (it has [app side])`) {
		t.Errorf("unknown container: %v", err)
	}
}

func TestWaitRolloutComplete(t *testing.T) {
	noLeak(t)
	old := pod("target-old", running(1000), ready(true), deleting(1030, 30))
	c, cs := newFake(t, deployment(2, generation(2), status(1, 2, 0, 2, 2)), old, pod("target-new", running(1010), ready(true)))
	ctx := ctxT(t)
	// The controller observes the new generation and completes the
	// rollout; the old pod goes later.
	after(t, 100*time.Millisecond, func() error {
		_, err := cs.AppsV1().Deployments(testNS).UpdateStatus(ctx, deployment(2, generation(2), status(2, 2, 2, 2, 2)), metav1.UpdateOptions{})
		return err
	})
	var goneNs int64
	after(t, 250*time.Millisecond, func() error {
		goneNs = time.Now().UnixNano()
		return cs.CoreV1().Pods(testNS).Delete(ctx, "target-old", metav1.DeleteOptions{})
	})
	done, err := c.WaitRolloutComplete(ctx, testNS, "target", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if done < goneNs || done > time.Now().UnixNano() {
		t.Errorf("done at %d, the old pod went at %d", done, goneNs)
	}
}

func TestWaitRolloutFails(t *testing.T) {
	noLeak(t)
	ctx := ctxT(t)
	// A new pod whose image cannot be pulled, beside an old one terminating.
	c, _ := newFake(t, deployment(2, generation(2), status(2, 3, 1, 2, 2)),
		pod("target-old", running(1000), deleting(1030, 30)), pod("target-new", waiting("ErrImagePull", "not found")))
	_, err := c.WaitRolloutComplete(ctx, testNS, "target", 5*time.Second)
	if pse := new(PodStartError); !errors.As(err, &pse) || pse.Pod != "target-new" {
		t.Errorf("image pull: %v", err)
	}
	// Past its progress deadline.
	c, _ = newFake(t, deployment(2, generation(2), status(2, 3, 1, 2, 2), deadline))
	_, err = c.WaitRolloutComplete(ctx, testNS, "target", 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "exceeded its progress deadline") {
		t.Errorf("deadline: %v", err)
	}
	// A timeout says the rollout's state.
	c, _ = newFake(t, deployment(2, generation(2), status(2, 3, 2, 3, 3)), pod("target-old", running(1000), ready(true)))
	_, err = c.WaitRolloutComplete(ctx, testNS, "target", 200*time.Millisecond)
	if !errors.Is(err, errTimeout) || !strings.Contains(err.Error(), "1 old replicas pending termination") || !strings.Contains(err.Error(), "target-old Running ready") {
		t.Errorf("timeout: %v", err)
	}
	// The Deployment deleted under the wait.
	c, cs := newFake(t, deployment(2, generation(2), status(1, 2, 2, 2, 2)))
	after(t, 50*time.Millisecond, func() error { return cs.AppsV1().Deployments(testNS).Delete(ctx, "target", metav1.DeleteOptions{}) })
	_, err = c.WaitRolloutComplete(ctx, testNS, "target", 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "was deleted") {
		t.Errorf("deleted: %v", err)
	}
}
