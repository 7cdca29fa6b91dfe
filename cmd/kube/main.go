// Command kube is shutdownlab's single-node Kubernetes kit in one static
// binary: etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
// kubelet, kube-proxy and kubectl, built from the released Go modules
// (k8s.io/kubernetes v1.34.4, go.etcd.io/etcd/server/v3 v3.6.4) because no
// container image can be pulled on the machines this project runs on.
//
// It dispatches on its first argument ("kube kubelet --config ...") or, when
// called through a link named after a component, on the program name
// ("kubelet --config ..."). One binary links once instead of seven times
// and takes a seventh of the disk; each component still runs as its own
// process with only its own command's flags. scripts/kube.sh builds and runs
// it; docs/kube-kit.md says how.
//
// The version is set at link time (-X k8s.io/component-base/version.*);
// without it every component reports v0.0.0-master.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	_ "time/tzdata" // CronJob time zones, as the upstream apiserver/controller-manager mains do

	"github.com/spf13/cobra"
	"go.etcd.io/etcd/server/v3/etcdmain"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as upstream mains
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream mains
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream mains
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"

	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

// components maps a name to a function running that component with args
// (the arguments after the name) and returning the exit code.
var components = map[string]func(args []string) int{
	"etcd": func(args []string) int {
		etcdmain.Main(append([]string{"etcd"}, args...))
		return 0
	},
	"kube-apiserver":          cobraRun(func() *cobra.Command { return apiserver.NewAPIServerCommand() }),
	"kube-controller-manager": cobraRun(func() *cobra.Command { return controllermanager.NewControllerManagerCommand() }),
	"kube-scheduler":          cobraRun(func() *cobra.Command { return scheduler.NewSchedulerCommand() }),
	"kubelet":                 cobraRun(func() *cobra.Command { return kubelet.NewKubeletCommand(context.Background()) }),
	"kube-proxy":              cobraRun(func() *cobra.Command { return proxy.NewProxyCommand() }),
	"kubectl": func(args []string) int {
		logs.GlogSetter(kubectlcmd.GetLogVerbosity(append([]string{"kubectl"}, args...))) //nolint:errcheck
		c := kubectlcmd.NewDefaultKubectlCommand()
		c.SetArgs(args)
		if err := cli.RunNoErrOutput(c); err != nil {
			kubectlutil.CheckErr(err)
		}
		return 0
	},
	// Not a Kubernetes component: the kit's own teardown helper.
	"cri-reset": criReset,
}

func cobraRun(newCommand func() *cobra.Command) func(args []string) int {
	return func(args []string) int {
		c := newCommand()
		c.SetArgs(args)
		return cli.Run(c)
	}
}

func main() {
	name := filepath.Base(os.Args[0])
	args := os.Args[1:]
	if _, ok := components[name]; !ok {
		if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			usage()
			os.Exit(2)
		}
		name, args = args[0], args[1:]
	}
	run, ok := components[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "kube: unknown component %q\n", name)
		usage()
		os.Exit(2)
	}
	os.Exit(run(args))
}

func usage() {
	names := make([]string, 0, len(components))
	for n := range components {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(os.Stderr, "usage: kube COMPONENT [flags]  (or a link named COMPONENT)\ncomponents: %s\n", strings.Join(names, ", "))
}
