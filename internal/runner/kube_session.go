package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
)

// The cluster of platform kubernetes is a session service (services.go)
// connected on first use, with the runner's Options.Kube: a runner that
// never runs a kubernetes scenario never reads a kubeconfig.

// kubeSessionName names the cluster among the session services.
const kubeSessionName = "kubernetes"

// kubeConnectBound bounds connecting to the cluster.
const kubeConnectBound = 20 * time.Second

// kubeOf is r's cluster, connected on first use (a test's fake when set).
func kubeOf(r *Runner) (kubeCluster, error) {
	if kc := serviceOf[kubeCluster](r, kubeSessionName); kc != nil {
		return kc, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), kubeConnectBound)
	defer cancel()
	c, err := kubeapi.Connect(ctx, r.opts.Kube)
	if err != nil {
		return nil, fmt.Errorf("platform kubernetes: %w", err)
	}
	kc := kubeClient{c}
	r.setService(kubeSessionName, kubeCluster(kc))
	info := c.Info()
	r.opts.Progress.Logf("kubernetes: context %s, server %s (%s)", info.Context, info.Server, info.ServerVersion)
	return kc, nil
}

// kubeClient is the cluster over a real API server.
type kubeClient struct{ *kubeapi.Client }

// DeleteNamespace is kubeapi's with its defaults.
func (c kubeClient) DeleteNamespace(ctx context.Context, name string, wait time.Duration) error {
	return c.Client.DeleteNamespace(ctx, name, wait)
}

// Watch is kubeapi's, as the runner's recorder.
func (c kubeClient) Watch(ctx context.Context, ns, podSelector, service string) (kubeRecorder, error) {
	r, err := c.Client.Watch(ctx, ns, podSelector, service)
	if err != nil {
		return nil, err
	}
	return r, nil
}

var _ io.Writer = (*lineDemux)(nil)
