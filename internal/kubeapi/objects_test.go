package kubeapi

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

func TestCreateObjects(t *testing.T) {
	c, cs := newFake(t)
	ctx := ctxT(t)
	cs.PrependReactor("create", "services", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		s := a.(k8stesting.CreateAction).GetObject().(*corev1.Service).DeepCopy()
		s.Spec.ClusterIP = "10.96.0.10" // the API server allocates it
		return true, s, cs.Tracker().Create(corev1.SchemeGroupVersion.WithResource("services"), s, s.Namespace)
	})

	// No namespace on the object: it goes into the one asked.
	d := deployment(2)
	d.Namespace = ""
	if err := c.CreateDeployment(ctx, testNS, d); err != nil {
		t.Fatal(err)
	}
	if d.Namespace != "" {
		t.Error("the caller's object was changed")
	}
	got, err := c.GetDeployment(ctx, testNS, "target")
	if err != nil || got.Namespace != testNS || *got.Spec.Replicas != 2 {
		t.Fatalf("get: %v %+v", err, got)
	}
	if err := c.CreatePod(ctx, testNS, pod("agent")); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods(testNS).Get(ctx, "agent", metav1.GetOptions{}); err != nil {
		t.Error(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "target"}}
	ip, err := c.CreateService(ctx, testNS, svc)
	if err != nil || ip != "10.96.0.10" {
		t.Errorf("service: %q %v", ip, err)
	}
	// Errors say what was asked and keep the API's.
	err = c.CreatePod(ctx, testNS, pod("agent"))
	if !apierrors.IsAlreadyExists(err) || !strings.HasPrefix(err.Error(), "create pod run-1/agent: ") {
		t.Errorf("second create: %v", err)
	}
	_, err = c.GetDeployment(ctx, testNS, "none")
	if !apierrors.IsNotFound(err) || !strings.HasPrefix(err.Error(), "get deployment run-1/none: ") {
		t.Errorf("missing: %v", err)
	}
}

func TestCreateRefusesAnotherNamespace(t *testing.T) {
	c, cs := newFake(t)
	ctx := ctxT(t)
	d := deployment(1)
	d.Namespace = "kube-system"
	p := pod("agent")
	p.Namespace = "default"
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "target", Namespace: "other"}}
	errs := []error{c.CreateDeployment(ctx, testNS, d), c.CreatePod(ctx, testNS, p)}
	_, err := c.CreateService(ctx, testNS, s)
	errs = append(errs, err, c.CreatePod(ctx, "", pod("x")))
	for i, err := range errs {
		if err == nil || !(strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "no namespace")) {
			t.Errorf("%d: %v", i, err)
		}
	}
	if n := len(cs.Actions()); n != 0 {
		t.Errorf("%d requests sent: %v", n, cs.Actions())
	}
	if want := `create deployment run-1/target: refused, the object names namespace "kube-system"`; errs[0].Error() != want {
		t.Errorf("got %q, want %q", errs[0], want)
	}
}
