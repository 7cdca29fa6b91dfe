package kubeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Config selects a cluster. It is never written.
type Config struct {
	// Kubeconfig is a kubeconfig path; "" follows client-go's default
	// loading rules ($KUBECONFIG, a list of paths merged, else
	// ~/.kube/config).
	Kubeconfig string
	// Context is a context of that kubeconfig; "" is its current context.
	Context string
}

// Info says which cluster a Client talks to.
type Info struct {
	// Context is the kubeconfig context used, Server the API server's
	// address (https://host:port), ServerVersion its version ("v1.34.4").
	Context, Server, ServerVersion string
}

// Client is a connection to one API server. Its methods are safe for
// concurrent use.
type Client struct {
	cs   kubernetes.Interface
	info Info
	// poll is how often DeleteNamespace asks whether the namespace is gone.
	poll time.Duration
}

// Client-side rate limits: a run's waits, watches and log streams share
// one clientset, and client-go's default (5 requests/s, burst 10) would
// make them wait on each other.
const (
	clientQPS   = 50
	clientBurst = 100
)

// connectTimeout bounds Connect's version request (a variable for tests).
var connectTimeout = 10 * time.Second

// Connect loads the kubeconfig (read-only: client-go's migration of old
// kubeconfig locations, which writes, is turned off), builds a clientset
// with raised client-side rate limits and asks the server's version,
// within 10 s. Its errors name the kubeconfig path(s), the context and the
// server; an unknown context lists the contexts that exist. It never falls
// back to an in-cluster configuration.
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.MigrationRules = nil // Migrate copies files: this package never writes a kubeconfig
	if cfg.Kubeconfig != "" {
		rules.ExplicitPath = cfg.Kubeconfig
	}
	paths := strings.Join(rules.GetLoadingPrecedence(), ":")
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: cfg.Context})
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", paths, err)
	}
	name := cfg.Context
	if name == "" {
		name = raw.CurrentContext
	}
	if len(raw.Contexts) == 0 {
		return nil, fmt.Errorf("kubeconfig %s: no contexts (no kubeconfig there, or an empty one)", paths)
	}
	if _, ok := raw.Contexts[name]; !ok {
		var names []string
		for n := range raw.Contexts {
			names = append(names, n)
		}
		slices.Sort(names)
		if name == "" {
			return nil, fmt.Errorf("kubeconfig %s: no current context; pass one of: %s", paths, strings.Join(names, ", "))
		}
		return nil, fmt.Errorf("kubeconfig %s: no context %q; it has: %s", paths, name, strings.Join(names, ", "))
	}
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s, context %s: %w", paths, name, err)
	}
	rc.QPS, rc.Burst = clientQPS, clientBurst
	rc.UserAgent = "shutdownlab"
	rc.WarningHandler = rest.NoWarnings{} // deprecation warnings would go to stderr through klog
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s, context %s, server %s: %w", paths, name, rc.Host, err)
	}
	c := New(cs, Info{Context: name, Server: rc.Host})
	v, err := serverVersion(ctx, cs)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s, context %s: server %s: %w", paths, name, rc.Host, err)
	}
	c.info.ServerVersion = v
	return c, nil
}

// serverVersion asks GET /version within connectTimeout (the discovery
// client's ServerVersion takes no context).
func serverVersion(ctx context.Context, cs kubernetes.Interface) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("no answer to GET /version within %s: %w", connectTimeout, err)
		}
		return "", fmt.Errorf("GET /version: %w", err)
	}
	var v version.Info
	if err := json.Unmarshal(body, &v); err != nil {
		return "", fmt.Errorf("GET /version: %w", err)
	}
	return v.GitVersion, nil
}

// New wraps a clientset (tests: fake.NewSimpleClientset) and what the
// caller knows of its cluster.
func New(cs kubernetes.Interface, info Info) *Client {
	return &Client{cs: cs, info: info, poll: 250 * time.Millisecond}
}

// Info says which cluster c talks to.
func (c *Client) Info() Info { return c.info }

// Clientset returns the underlying clientset, for what this package does
// not cover.
func (c *Client) Clientset() kubernetes.Interface { return c.cs }
