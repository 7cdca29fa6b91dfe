package kubeapi

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8slabels "k8s.io/apimachinery/pkg/labels"
)

// Namespace is one namespace as Namespaces lists it.
type Namespace struct {
	// Name and Labels are its own; CreatedNs its creationTimestamp (whole
	// seconds, Unix ns); Terminating says its deletion is under way.
	Name        string
	Labels      map[string]string
	CreatedNs   int64
	Terminating bool
}

// systemNamespaces are never deleted by this package, whatever the
// caller asks: a run's namespace is never one of them.
var systemNamespaces = map[string]bool{
	metav1.NamespaceDefault: true, metav1.NamespaceSystem: true, metav1.NamespacePublic: true, corev1.NamespaceNodeLease: true,
}

// CreateNamespace creates namespace name with labels. It is the only way
// this package makes a namespace: the run's own.
func (c *Client) CreateNamespace(ctx context.Context, name string, labels map[string]string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: maps.Clone(labels)}}
	if _, err := c.cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", name, err)
	}
	return nil
}

// DeleteOption sets an option of a deletion.
type DeleteOption func(*metav1.DeleteOptions)

// WithPropagation sets the deletion's propagation policy (the API's
// default for a namespace is Background).
func WithPropagation(p metav1.DeletionPropagation) DeleteOption {
	return func(o *metav1.DeleteOptions) { o.PropagationPolicy = &p }
}

// WithGrace sets the deletion's grace period in seconds (0: at once).
func WithGrace(seconds int64) DeleteOption {
	return func(o *metav1.DeleteOptions) { o.GracePeriodSeconds = &seconds }
}

// DeleteNamespace deletes namespace name (a namespace already gone is no
// error) and waits until the API no longer has it, at most wait. Its
// error says what is left ("namespace X still Terminating after 1m0s:
// pods a, b remain; ..."). The Kubernetes system namespaces are refused.
func (c *Client) DeleteNamespace(ctx context.Context, name string, wait time.Duration, opts ...DeleteOption) error {
	if systemNamespaces[name] || name == "" {
		return fmt.Errorf("delete namespace %q: refused, not a run's namespace", name)
	}
	if wait <= 0 {
		return fmt.Errorf("delete namespace %s: no wait given", name)
	}
	var o metav1.DeleteOptions
	for _, f := range opts {
		f(&o)
	}
	api := c.cs.CoreV1().Namespaces()
	if err := api.Delete(ctx, name, o); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("delete namespace %s: %w", name, err)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	t := time.NewTicker(c.poll)
	defer t.Stop()
	for {
		_, err := api.Get(wctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case ctx.Err() != nil:
			return fmt.Errorf("delete namespace %s: %w", name, ctx.Err())
		case err != nil && wctx.Err() == nil:
			return fmt.Errorf("delete namespace %s: waiting for it to go: %w", name, err)
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return fmt.Errorf("delete namespace %s: %w", name, ctx.Err())
			}
			return fmt.Errorf("delete namespace %s: %s", name, c.leftIn(ctx, name, wait))
		case <-t.C:
		}
	}
}

// leftIn says what keeps namespace name, within 5 s of asking.
func (c *Client) leftIn(ctx context.Context, name string, waited time.Duration) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ns, err := c.cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Sprintf("namespace %s still there after %s (%v)", name, waited, err)
	}
	phase := string(ns.Status.Phase)
	if phase == "" {
		phase = "there"
	}
	s := fmt.Sprintf("namespace %s still %s after %s", name, phase, waited)
	if l, err := c.cs.CoreV1().Pods(name).List(ctx, metav1.ListOptions{}); err == nil && len(l.Items) > 0 {
		var names []string
		for _, p := range l.Items {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		s += ": pods " + strings.Join(names, ", ") + " remain"
	}
	for _, cond := range ns.Status.Conditions {
		if cond.Status == corev1.ConditionTrue && cond.Message != "" {
			s += "; " + cond.Message
		}
	}
	return s
}

// Namespaces lists the namespaces that match label selector selector
// ("" all), by name.
func (c *Client) Namespaces(ctx context.Context, selector string) ([]Namespace, error) {
	if _, err := k8slabels.Parse(selector); err != nil {
		return nil, fmt.Errorf("list namespaces %q: %w", selector, err)
	}
	l, err := c.cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("list namespaces %q: %w", selector, err)
	}
	out := make([]Namespace, 0, len(l.Items))
	for _, ns := range l.Items {
		n := Namespace{
			Name:        ns.Name,
			Labels:      maps.Clone(ns.Labels),
			Terminating: ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating,
		}
		if !ns.CreationTimestamp.IsZero() {
			n.CreatedNs = ns.CreationTimestamp.UnixNano()
		}
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
