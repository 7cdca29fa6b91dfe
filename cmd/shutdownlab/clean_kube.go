package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
)

// cleanNamespaceBound bounds one namespace's deletion by clean.
const cleanNamespaceBound = 2 * time.Minute

// cleanNamespaces removes, on the cluster of c, the namespaces platform
// kubernetes runs left (labelled shutdownlab=1) whose owner process is
// gone, by the rule clean applies to containers; nothing else on the
// cluster is read or touched.
func cleanNamespaces(ctx context.Context, eng *docker.Engine, c clusterFlags, all bool, stdout io.Writer) error {
	kc, err := kubeapi.Connect(ctx, c.kube())
	if err != nil {
		return err
	}
	nss, err := kc.Namespaces(ctx, docker.LabelManaged+"=1")
	if err != nil {
		return err
	}
	var removed, kept []string
	var errs []error
	for _, ns := range nss {
		ok, why := eng.Decide(ns.Labels, all)
		if !ok {
			kept = append(kept, fmt.Sprintf("%s (%s)", ns.Name, why))
			continue
		}
		if err := kc.DeleteNamespace(ctx, ns.Name, cleanNamespaceBound); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, fmt.Sprintf("%s (%s)", ns.Name, why))
	}
	info := kc.Info()
	fmt.Fprintf(stdout, "kubernetes %s: removed %d namespace(s)%s", info.Context, len(removed), listWords(removed))
	if len(kept) > 0 {
		fmt.Fprintf(stdout, "; kept %d%s", len(kept), listWords(kept))
	}
	fmt.Fprintln(stdout)
	return errors.Join(errs...)
}

// listWords is ": a, b" or "".
func listWords(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return ": " + strings.Join(xs, ", ")
}
