// Package kubetest holds what the tests that run against a real cluster
// (make test-kube) share: the switch that turns them on, the registry the
// kit serves, and a bystander — objects in a namespace no run owns, which
// a run, Ctrl-C or clean must leave exactly as they were.
package kubetest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
)

// EnvKubeconfig names the kubeconfig the cluster tests run against; they
// skip without it, so a user's own KUBECONFIG never turns them on.
const EnvKubeconfig = "SHUTDOWNLAB_TEST_KUBECONFIG"

// EnvRegistry is the registry (HOST[:PORT][/PREFIX]) images are pushed to
// for the cluster; scripts/kube.sh env prints the kit's.
const EnvRegistry = "SHUTDOWNLAB_REGISTRY"

// DefaultRegistry is the kit's registry, used when EnvRegistry is unset.
const DefaultRegistry = "127.0.0.1:5000/shutdownlab"

// Kubeconfig is the kubeconfig of the cluster under test; it skips t when
// none is named.
func Kubeconfig(t testing.TB) string {
	t.Helper()
	kc := os.Getenv(EnvKubeconfig)
	if kc == "" {
		t.Skip(EnvKubeconfig + " not set: no cluster to test against (make kube-up, then make test-kube)")
	}
	if _, err := os.Stat(kc); err != nil {
		t.Fatalf("%s=%s: %v", EnvKubeconfig, kc, err)
	}
	return kc
}

// Registry is the registry reference images go through.
func Registry() string {
	if r := os.Getenv(EnvRegistry); r != "" {
		return r
	}
	return DefaultRegistry
}

// Connect connects to the cluster under test.
func Connect(t testing.TB, kubeconfig string) *kubeapi.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := kubeapi.Connect(ctx, kubeapi.Config{Kubeconfig: kubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Bystander is a namespace this test made and no run owns, holding one
// ConfigMap labelled shutdownlab=1 (the label of a run's objects), so a
// cleanup that matched on object labels rather than on its own namespace
// would touch it.
type Bystander struct {
	c         *kubeapi.Client
	Namespace string
	version   string // the ConfigMap's resourceVersion at creation
}

// NewBystander creates the bystander namespace and its ConfigMap; it is
// deleted when t ends.
func NewBystander(t testing.TB, c *kubeapi.Client) *Bystander {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := fmt.Sprintf("bystander-%d", time.Now().UnixNano()%1e9)
	if err := c.CreateNamespace(ctx, ns, map[string]string{"shutdownlab.test": "bystander"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.DeleteNamespace(context.Background(), ns, 2*time.Minute); err != nil {
			t.Errorf("bystander: %v", err)
		}
	})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "keep", Labels: map[string]string{docker.LabelManaged: "1"}},
		Data: map[string]string{"note": "a namespace no shutdownlab run owns"}}
	got, err := c.Clientset().CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &Bystander{c: c, Namespace: ns, version: got.ResourceVersion}
}

// Untouched fails t unless the bystander's namespace is active and its
// ConfigMap has the resourceVersion it was created with.
func (b *Bystander) Untouched(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns, err := b.c.Clientset().CoreV1().Namespaces().Get(ctx, b.Namespace, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("bystander namespace %s: %v", b.Namespace, err)
	}
	if ns.DeletionTimestamp != nil || ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("bystander namespace %s: phase %s, deletion %v", b.Namespace, ns.Status.Phase, ns.DeletionTimestamp)
	}
	cm, err := b.c.Clientset().CoreV1().ConfigMaps(b.Namespace).Get(ctx, "keep", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("bystander configmap: %v", err)
	}
	if cm.ResourceVersion != b.version {
		t.Errorf("bystander configmap changed: resourceVersion %s, was %s", cm.ResourceVersion, b.version)
	}
}

// RunNamespaces lists the namespaces of shutdownlab runs (label
// shutdownlab=1 and a shutdownlab.run label) whose name has prefix.
func RunNamespaces(t testing.TB, c *kubeapi.Client, prefix string) []string {
	return runNamespaces(t, c, docker.LabelManaged+"=1,shutdownlab.run", prefix)
}

// OwnRunNamespaces lists the run namespaces this test process created
// (owner labels: this host and pid): what it may have left behind, apart
// from another process's runs on the same cluster (a test package run
// beside it, another user's run).
func OwnRunNamespaces(t testing.TB, c *kubeapi.Client) []string {
	o := docker.CurrentOwner()
	sel := fmt.Sprintf("%s=1,shutdownlab.run,%s=%s,%s=%d", docker.LabelManaged, docker.LabelOwnerHost, o.Host, docker.LabelOwnerPID, o.PID)
	return runNamespaces(t, c, sel, "")
}

// runNamespaces lists the namespaces matching label selector sel whose
// name has prefix.
func runNamespaces(t testing.TB, c *kubeapi.Client, sel, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nss, err := c.Namespaces(ctx, sel)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ns := range nss {
		if strings.HasPrefix(ns.Name, prefix) {
			out = append(out, ns.Name)
		}
	}
	return out
}
