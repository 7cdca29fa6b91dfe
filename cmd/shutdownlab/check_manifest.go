package main

import (
	"context"
	"io"
	"strings"

	"github.com/shutdownlab/shutdownlab/check"
)

const manifestUsage = `Usage: shutdownlab check --manifest FILE [--workload NAME] [--container NAME] [--image REF] [--propagation 0s,1s,2s,5s] [--delay DUR] [--path /] [--ready-path PATH] [--port N] [--runs N] [--env NAME=VALUE]... [--set key=value]... [--expect EXPR]... [--search-signals SIG,...|none] [--junit FILE] [--report-only] [--out DIR] [--context CTX] [--kubeconfig FILE] [--registry HOST[:PORT][/PREFIX]]

With --context (or --kubeconfig) it runs on that real cluster instead: the
workload applied as a Deployment in a scratch namespace of the run's own
(deleted at the end), a ClusterIP Service over it and the load agent as a
pod dialing it; then a real rollout (kubectl rollout restart: every pod,
by the Deployment controller and the kubelet) under load. The verdict says
safe or not, the propagation the EndpointSlices showed, the grace period
the measured exits need, and, when the rollout failed requests without a
SIGKILL, the smallest preStop sleep that measured safe on the cluster.
--registry (default $SHUTDOWNLAB_REGISTRY) is where the local image is
pushed for the nodes to pull. Without --context it is the emulation on
Docker described below, and says so on its first line.

"Will this Deployment roll without errors?" Reads a Kubernetes manifest (a
Deployment, StatefulSet or Pod; several documents allowed) with the
ecosystem's own types and runs its container as the kubelet would: the
image (local, never pulled; --image replaces it, e.g. the tag CI just
built), command and args, literal env (a valueFrom entry needs --env
NAME=VALUE), ports, readiness probe path. The workload's replicas (at
least 2, at most 5) run as pods behind Caddy with 20 keep-alive clients
sending GET PATH; one pod is deleted and terminated by
the kubelet's rules: its preStop hook (sleep, exec, httpGet; a hook that
fails, such as an exec of a command the image lacks, is the kubelet's
FailedPreStopHook: the signal follows at once, and the verdict names it),
then lifecycle.stopSignal (else the image's STOPSIGNAL), SIGKILL when
terminationGracePeriodSeconds (counted from the deletion, the hook
included) runs out. The proxy stops sending to the pod after each
propagation delay of the sweep, one variant each. For a Deployment's
RollingUpdate a new pod takes its place: started at the deletion, or, with
maxUnavailable 0, before it (the deletion waits until the new pod is
available: ready for minReadySeconds); ready when its httpGet readinessProbe
passes (without one: once its container started); joining the proxy after
the same propagation delay. That is one step of the rollout; the others
repeat it.

The verdict says, per delay, how many requests failed and under which rule
(a new pod that took traffic before its app served it; the endpoint still
registered after the pod stopped serving; work dropped after it was gone;
the SIGKILL); whether it is safe at your delay (--delay,
default the sweep's largest value when --propagation is given, else 2s);
the smallest preStop sleep that measured safe there (a short search, when
the propagation is what failed); the grace period the measured exit needs;
and, when the pod was SIGKILLed, check's signal search on the image (none
with --search-signals none; --signals is its deprecated name). What the emulation does not run (other containers,
volumes, probes other than httpGet, ...) is named.

Runs another shutdownlab session overlapped are noted; after Ctrl-C the
verdict says what the interrupt left unmeasured.

Exit 0: safe at your delay; 1: unsafe there (a failed preStop hook
included), or an expectation failed
(--report-only: 0 for unsafe); 2: it could not tell (no valid run) or the
harness failed; 64: bad usage or input. --junit writes one test case per
delay and one for the verdict.
`

// isManifestCheck reports whether check's arguments ask for a manifest.
func isManifestCheck(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "manifest" {
			return true
		}
	}
	return false
}

// manifestFlags are check --manifest's flag values that
// check.ManifestOptions takes parsed.
type manifestFlags struct {
	propagation, delay, signals string
	reportOnly                  bool
	sets, envs                  setFlags
	// cluster is --kubeconfig, --context and --registry: with a context
	// (or a kubeconfig), the check runs on that cluster.
	cluster clusterFlags
}

// cmdCheckManifest checks a manifest (package check) with the flags'
// choices.
func cmdCheckManifest(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	c := newCommand("check", manifestUsage)
	o, f := check.ManifestOptions{}, manifestFlags{}
	c.fs.StringVar(&o.File, "manifest", "", "the Kubernetes manifest (YAML) to check")
	c.fs.StringVar(&o.Workload, "workload", "", "the workload, NAME or KIND/NAME, when the file holds several")
	c.fs.StringVar(&o.Container, "container", "", "the container, when the pod has several")
	c.fs.StringVar(&o.Image, "image", "", "run this local image instead of the manifest's (e.g. the tag CI just built)")
	c.fs.StringVar(&f.propagation, "propagation", "", "endpoint propagation delays to sweep, comma-separated (default 0s,1s,2s,5s)")
	c.fs.StringVar(&f.delay, "delay", "", "your cluster's propagation delay, which the verdict and exit code judge (default: the largest --propagation, else 2s)")
	c.fs.StringVar(&o.Path, "path", "/", "request target the clients send GETs to (a query is allowed)")
	c.fs.StringVar(&o.ReadyPath, "ready-path", "", "GET path that answers 200 once ready (default: the readiness probe's, else /readyz)")
	c.fs.IntVar(&o.Port, "port", 0, "port the container serves on (default: the readiness probe's, else its first declared port, else the image's only EXPOSEd one, else 8080)")
	c.fs.IntVar(&o.Runs, "runs", 1, "repetitions per propagation delay, 1..100")
	c.fs.StringVar(&f.signals, "search-signals", "", "the stop signals check's search tries when the pod is SIGKILLed (default "+strings.Join(check.SearchSignals, ",")+`; "none": no search)`)
	c.fs.StringVar(&o.Out, "out", "results/runs", "root directory for the result directories")
	c.fs.BoolVar(&f.reportOnly, "report-only", false, "exit 0 when unsafe (the report is still written)")
	c.fs.Var(&f.sets, "set", "override a field of the generated scenario (repeatable)")
	c.fs.Var(&f.envs, "env", "NAME=VALUE for a valueFrom entry the manifest cannot give, or an override (repeatable; reported)")
	c.alias("signals", "search-signals")
	f.cluster.register(c.fs)
	var exp expectFlags
	exp.register(c)
	pos, err := c.parse(args, stdout)
	if err != nil {
		return exitUsage, err
	}
	if err := c.checkAliases(stderr); err != nil {
		return exitUsage, err
	}
	if err := f.cluster.check(); err != nil {
		return exitUsage, err
	}
	if len(pos) > 0 {
		return exitUsage, usagef("check --manifest takes no IMAGE argument (got %q): the image is the manifest's, or --image", pos[0])
	}
	if err := f.options(&o); err != nil {
		return exitUsage, err
	}
	o.Expect = exp.check()
	res, err := check.Manifest(ctx, o, stdout, stderr)
	return verdictExit(res, f.reportOnly), err
}
