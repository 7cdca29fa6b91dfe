package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	criclient "k8s.io/cri-client/pkg"
)

// criReset stops and removes every pod sandbox of a CRI runtime. The kit's
// kube-down runs it against its own containerd after the kubelet has
// stopped: StopPodSandbox kills the pod's containers and has containerd
// run the CNI DEL (veth, host-local lease, portmap rules) and remove the
// network namespace; RemovePodSandbox removes the containers and their
// overlay mounts. Going through CRI rather than killing processes leaves
// the CNI state consistent. Exit code 1 if any sandbox could not be removed.
func criReset(args []string) int {
	fs := flag.NewFlagSet("cri-reset", flag.ContinueOnError)
	endpoint := fs.String("endpoint", "", "CRI endpoint, e.g. unix:///var/lib/shutdownlab-kube/containerd/containerd.sock")
	timeout := fs.Duration("timeout", 60*time.Second, "bound on the whole reset")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *endpoint == "" {
		fmt.Fprintln(os.Stderr, "cri-reset: --endpoint is required")
		return 2
	}
	rs, err := criclient.NewRemoteRuntimeService(*endpoint, 10*time.Second, nil, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cri-reset: connect %s: %v\n", *endpoint, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	pods, err := rs.ListPodSandbox(ctx, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cri-reset: list sandboxes: %v\n", err)
		return 1
	}
	failed := 0
	for _, p := range pods {
		name := p.GetMetadata().GetNamespace() + "/" + p.GetMetadata().GetName()
		if err := rs.StopPodSandbox(ctx, p.GetId()); err != nil {
			fmt.Fprintf(os.Stderr, "cri-reset: stop %s (%s): %v\n", name, p.GetId(), err)
		}
		if err := rs.RemovePodSandbox(ctx, p.GetId()); err != nil {
			fmt.Fprintf(os.Stderr, "cri-reset: remove %s (%s): %v\n", name, p.GetId(), err)
			failed++
			continue
		}
		fmt.Printf("cri-reset: removed sandbox %s\n", name)
	}
	if failed > 0 {
		return 1
	}
	return 0
}
