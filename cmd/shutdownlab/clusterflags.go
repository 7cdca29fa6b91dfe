package main

import (
	"flag"
	"os"
	"strings"

	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
)

// registryEnv is --registry's environment fallback (make kube-up prints
// it for the kit's registry).
const registryEnv = "SHUTDOWNLAB_REGISTRY"

// clusterFlags are the flags of the commands that can run on a
// Kubernetes cluster (platform kubernetes, check --manifest --context):
// which cluster, and where its images go.
type clusterFlags struct {
	kubeconfig, context, registry string
}

// register adds --kubeconfig, --context and --registry to fs.
func (c *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster for platform kubernetes (default: $KUBECONFIG, else ~/.kube/config; never written)")
	fs.StringVar(&c.context, "context", "", "kubeconfig context for platform kubernetes (default: its current context)")
	fs.StringVar(&c.registry, "registry", os.Getenv(registryEnv), "HOST[:PORT][/PREFIX]: push the local images pods run there (default $"+registryEnv+"; none: pods name the local images, for nodes that have them)")
}

// check refuses values that cannot be right.
func (c *clusterFlags) check() error {
	switch {
	case strings.ContainsAny(c.registry, " \t\r\n") || strings.Contains(c.registry, "://"):
		return usagef("--registry: %q: want HOST[:PORT][/PREFIX] (no scheme)", c.registry)
	case strings.ContainsAny(c.context, "\r\n"):
		return usagef("--context: %q is not a context name", c.context)
	}
	return nil
}

// kube is the cluster selection.
func (c *clusterFlags) kube() kubeapi.Config {
	return kubeapi.Config{Kubeconfig: c.kubeconfig, Context: c.context}
}
