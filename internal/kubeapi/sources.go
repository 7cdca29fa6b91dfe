package kubeapi

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// The listers of the kinds this package watches, in namespace ns.

func (c *Client) pods(ns string) lister {
	api := c.cs.CoreV1().Pods(ns)
	return lister{
		list: func(ctx context.Context, o metav1.ListOptions) ([]runtime.Object, string, error) {
			l, err := api.List(ctx, o)
			if err != nil {
				return nil, "", err
			}
			return objects(l.Items), l.ResourceVersion, nil
		},
		watch: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return api.Watch(ctx, o) },
	}
}

func (c *Client) events(ns string) lister {
	api := c.cs.CoreV1().Events(ns)
	return lister{
		list: func(ctx context.Context, o metav1.ListOptions) ([]runtime.Object, string, error) {
			l, err := api.List(ctx, o)
			if err != nil {
				return nil, "", err
			}
			return objects(l.Items), l.ResourceVersion, nil
		},
		watch: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return api.Watch(ctx, o) },
	}
}

func (c *Client) endpointSlices(ns string) lister {
	api := c.cs.DiscoveryV1().EndpointSlices(ns)
	return lister{
		list: func(ctx context.Context, o metav1.ListOptions) ([]runtime.Object, string, error) {
			l, err := api.List(ctx, o)
			if err != nil {
				return nil, "", err
			}
			return objects(l.Items), l.ResourceVersion, nil
		},
		watch: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return api.Watch(ctx, o) },
	}
}

func (c *Client) deployments(ns string) lister {
	api := c.cs.AppsV1().Deployments(ns)
	return lister{
		list: func(ctx context.Context, o metav1.ListOptions) ([]runtime.Object, string, error) {
			l, err := api.List(ctx, o)
			if err != nil {
				return nil, "", err
			}
			return objects(l.Items), l.ResourceVersion, nil
		},
		watch: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return api.Watch(ctx, o) },
	}
}

// object is a list item type whose pointer is a runtime.Object.
type object[T any] interface {
	*T
	runtime.Object
}

func objects[T any, P object[T]](items []T) []runtime.Object {
	out := make([]runtime.Object, len(items))
	for i := range items {
		out[i] = P(&items[i])
	}
	return out
}

// nameOf and labelsOf read an object's metadata ("" and nil when it has
// none).
func nameOf(o runtime.Object) string {
	if m, err := meta.Accessor(o); err == nil {
		return m.GetName()
	}
	return ""
}

func labelsOf(o runtime.Object) map[string]string {
	if m, err := meta.Accessor(o); err == nil {
		return m.GetLabels()
	}
	return nil
}
