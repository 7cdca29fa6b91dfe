package kubeapi

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// inNamespace checks that an object meant for namespace ns does not name
// another one: such an object is refused, never created elsewhere.
func inNamespace(kind, ns string, m *metav1.ObjectMeta) error {
	if ns == "" {
		return fmt.Errorf("create %s %s: no namespace given", kind, m.Name)
	}
	if m.Namespace != "" && m.Namespace != ns {
		return fmt.Errorf("create %s %s/%s: refused, the object names namespace %q", kind, ns, m.Name, m.Namespace)
	}
	return nil
}

// CreateDeployment creates d in namespace ns (d itself is not changed).
func (c *Client) CreateDeployment(ctx context.Context, ns string, d *appsv1.Deployment) error {
	if err := inNamespace("deployment", ns, &d.ObjectMeta); err != nil {
		return err
	}
	d = d.DeepCopy()
	d.Namespace = ns
	if _, err := c.cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create deployment %s/%s: %w", ns, d.Name, err)
	}
	return nil
}

// CreateService creates s in namespace ns and returns the cluster IP the
// server gave it ("None" for a headless Service).
func (c *Client) CreateService(ctx context.Context, ns string, s *corev1.Service) (clusterIP string, err error) {
	if err := inNamespace("service", ns, &s.ObjectMeta); err != nil {
		return "", err
	}
	s = s.DeepCopy()
	s.Namespace = ns
	got, err := c.cs.CoreV1().Services(ns).Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("create service %s/%s: %w", ns, s.Name, err)
	}
	return got.Spec.ClusterIP, nil
}

// CreatePod creates p in namespace ns.
func (c *Client) CreatePod(ctx context.Context, ns string, p *corev1.Pod) error {
	if err := inNamespace("pod", ns, &p.ObjectMeta); err != nil {
		return err
	}
	p = p.DeepCopy()
	p.Namespace = ns
	if _, err := c.cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create pod %s/%s: %w", ns, p.Name, err)
	}
	return nil
}

// GetDeployment reads Deployment ns/name (a missing one's error
// satisfies apierrors.IsNotFound).
func (c *Client) GetDeployment(ctx context.Context, ns, name string) (*appsv1.Deployment, error) {
	d, err := c.cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get deployment %s/%s: %w", ns, name, err)
	}
	return d, nil
}
