package kubeapi

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

func TestNamespaces(t *testing.T) {
	c, _ := newFake(t)
	ctx := ctxT(t)
	labels := map[string]string{"shutdownlab.run": "r1"}
	if err := c.CreateNamespace(ctx, "run-b", labels); err != nil {
		t.Fatal(err)
	}
	labels["shutdownlab.run"] = "changed after the call"
	if err := c.CreateNamespace(ctx, "run-a", map[string]string{"shutdownlab.run": "r2"}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, "other", nil); err != nil {
		t.Fatal(err)
	}
	err := c.CreateNamespace(ctx, "run-a", nil)
	if err == nil || !strings.Contains(err.Error(), "create namespace run-a: ") {
		t.Errorf("second create: %v", err)
	}
	got, err := c.Namespaces(ctx, "shutdownlab.run")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "run-a" || got[1].Name != "run-b" || got[1].Labels["shutdownlab.run"] != "r1" || got[0].Terminating {
		t.Errorf("got %+v", got)
	}
	all, _ := c.Namespaces(ctx, "")
	if len(all) != 3 {
		t.Errorf("all: %+v", all)
	}
	if _, err := c.Namespaces(ctx, "a in (("); err == nil {
		t.Error("a bad selector is no error")
	}
}

func TestDeleteNamespaceWaits(t *testing.T) {
	noLeak(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNS}}
	c, cs := newFake(t, ns)
	// The API marks it Terminating; the namespace controller removes it
	// 200 ms later.
	var opts metav1.DeleteOptions
	cs.PrependReactor("delete", "namespaces", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		opts = a.(k8stesting.DeleteActionImpl).DeleteOptions
		term := ns.DeepCopy()
		term.Status.Phase = corev1.NamespaceTerminating
		return true, nil, cs.Tracker().Update(corev1.SchemeGroupVersion.WithResource("namespaces"), term, "")
	})
	after(t, 200*time.Millisecond, func() error {
		return cs.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("namespaces"), "", testNS)
	})
	start := time.Now()
	if err := c.DeleteNamespace(ctxT(t), testNS, 5*time.Second, WithPropagation(metav1.DeletePropagationForeground), WithGrace(0)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("returned after %s, before the namespace went", d)
	}
	if opts.PropagationPolicy == nil || *opts.PropagationPolicy != metav1.DeletePropagationForeground || opts.GracePeriodSeconds == nil || *opts.GracePeriodSeconds != 0 {
		t.Errorf("delete options %+v", opts)
	}
	// Already gone: no error.
	if err := c.DeleteNamespace(ctxT(t), testNS, time.Second); err != nil {
		t.Errorf("gone: %v", err)
	}
}

func TestDeleteNamespaceTimesOut(t *testing.T) {
	noLeak(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNS}}
	c, cs := newFake(t, ns, pod("target-b"), pod("target-a"), pod("elsewhere", func(p *corev1.Pod) { p.Namespace = "other" }))
	cs.PrependReactor("delete", "namespaces", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		term := ns.DeepCopy()
		term.Status.Phase = corev1.NamespaceTerminating
		term.Status.Conditions = []corev1.NamespaceCondition{{Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue,
			Message: "Some resources are remaining: pods. has 2 resource instances"}}
		return true, nil, cs.Tracker().Update(corev1.SchemeGroupVersion.WithResource("namespaces"), term, "")
	})
	start := time.Now()
	err := c.DeleteNamespace(ctxT(t), testNS, 300*time.Millisecond)
	if err == nil {
		t.Fatal("no error")
	}
	want := "delete namespace run-1: namespace run-1 still Terminating after 300ms: pods target-a, target-b remain; Some resources are remaining: pods. has 2 resource instances"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 3*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestDeleteNamespaceRefuses(t *testing.T) {
	c, cs := newFake(t)
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease", ""} {
		if err := c.DeleteNamespace(ctxT(t), name, time.Second); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%q: %v", name, err)
		}
	}
	if err := c.DeleteNamespace(ctxT(t), testNS, 0); err == nil {
		t.Error("no wait: no error")
	}
	if n := len(cs.Actions()); n != 0 {
		t.Errorf("%d requests sent: %v", n, cs.Actions())
	}
}
