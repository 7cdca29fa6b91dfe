package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
	"github.com/shutdownlab/shutdownlab/internal/runplan"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// ManifestOptions are the choices of a manifest check (check --manifest
// FILE), as the command line gives them, checked.
type ManifestOptions struct {
	// File is the manifest; Workload (NAME or KIND/NAME) and Container
	// choose in one holding several.
	File, Workload, Container string
	// Image replaces the manifest's image ("": the manifest's).
	Image string
	// Delays are the propagation delays swept, ascending and distinct;
	// Stated, one of them, is the delay the verdict judges.
	Delays []time.Duration
	Stated time.Duration
	// Path is the request target of the clients' GETs; ReadyPath answers
	// 200 once ready ("": the readiness probe's, else /readyz).
	Path, ReadyPath string
	// Port is the port the container serves on (0: the readiness probe's,
	// else its first declared port, else the image's only EXPOSEd one,
	// else 8080); Runs the repetitions per delay.
	Port, Runs int
	// Signals are the signals the search tries when the pod is SIGKILLed
	// (nil: no search).
	Signals []string
	// Env gives valueFrom entries the manifest cannot, or overrides.
	Env map[string]string
	// Sets are --set values on the generated scenario; Out the root
	// directory of the result directories.
	Sets []string
	Out  string
	// Expect is how the runs are judged besides the verdict.
	Expect Expectations
	// Kubeconfig and Context select a cluster to run on (neither: the
	// emulation on Docker); Registry is where its images are pushed.
	Kubeconfig, Context, Registry string
}

// OnCluster reports whether the check runs on a real cluster, not the
// emulation.
func (opts ManifestOptions) OnCluster() bool { return opts.Context != "" || opts.Kubeconfig != "" }

// Manifest checks a manifest's pod and its image: on Docker, the pod's
// termination swept over the propagation delay with the searches its
// verdict calls for; on a cluster (OnCluster), a real rollout. It writes
// the verdict (to stdout and verdict.txt) and its JUnit file. Bad input
// (a manifest that does not read, an image not present, an expectation
// that does not check) is a runplan.UsageError, refused before anything
// runs; progress goes to stderr.
func Manifest(ctx context.Context, opts ManifestOptions, stdout, stderr io.Writer) (Result, error) {
	o, err := opts.read(ctx, stderr)
	if err != nil {
		return Result{Code: runplan.ExitUsage}, err
	}
	exps, err := runplan.ParseExpectations(opts.Expect.Exprs, stderr)
	if err != nil {
		return Result{Code: runplan.ExitUsage}, err
	}
	p := runplan.New()
	p.Expect = runplan.Expectations{Parsed: exps, ReferenceVariant: opts.Expect.ReferenceVariant, JUnit: opts.Expect.JUnit}
	p.Kube, p.Registry = kubeapi.Config{Kubeconfig: opts.Kubeconfig, Context: opts.Context}, opts.Registry
	if opts.OnCluster() {
		return runManifestOnCluster(ctx, p, o, opts, stdout, stderr)
	}
	return runManifestCheck(ctx, p, o, opts, stdout, stderr)
}

// read reads the manifest and the image: what the scenario is made from.
// The --env values join opts.Sets.
func (opts *ManifestOptions) read(ctx context.Context, stderr io.Writer) (manifestOpts, error) {
	o := manifestOpts{path: opts.Path, runs: opts.Runs, delays: opts.Delays, stated: opts.Stated}
	var err error
	if o.pod, err = readManifest(opts.File, kube.Options{Workload: opts.Workload, Container: opts.Container, Env: opts.Env}); err != nil {
		return o, valueFromHint(err, opts.Sets)
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Env)) {
		opts.Sets = append(opts.Sets, "target.env."+name+"="+opts.Env[name])
		for _, e := range o.pod.Env {
			if e.Name == name && e.Value != opts.Env[name] {
				fmt.Fprintf(stderr, "note: --env %s overrides the manifest's value (%s=%s)\n", name, name, e.Value)
			}
		}
	}
	if o.pod.GracePeriod < time.Second {
		return o, runplan.Usagef("%s: terminationGracePeriodSeconds %d: a grace period of 0 kills the pod at once (a forced deletion); nothing to emulate", opts.File, int(o.pod.GracePeriod/time.Second))
	}
	o.image = o.pod.Image
	if opts.Image != "" {
		o.image = opts.Image
	}
	info, err := inspectImage(ctx, o.image)
	if err != nil && opts.OnCluster() && strings.Contains(err.Error(), "is not present on this Docker engine") {
		// On a cluster the nodes pull the image; its STOPSIGNAL is not
		// known here.
		fmt.Fprintf(stderr, "note: image %s is not on this Docker engine: the cluster pulls it as named; its STOPSIGNAL is not read here\n", o.image)
		err = nil
	}
	if err != nil {
		return o, err
	}
	// The emulation sends only the signals a scenario may name.
	o.imageStopSignal = "SIGTERM"
	if s, ok := scenarios.ImageStopSignal(info.StopSignal); ok {
		o.imageStopSignal = s
	}
	o.port, o.readyPath = manifestPort(opts.Port, o.pod, info.TCPPorts), opts.ReadyPath
	if o.readyPath == "" {
		o.readyPath = "/readyz"
		if r := o.pod.Readiness; r != nil {
			o.readyPath = r.Path
		}
	}
	propagation := fmt.Sprintf("propagation %s (judged at %s)", durList(o.delays), dur(o.stated))
	if opts.OnCluster() {
		propagation = "propagation: the cluster's own, measured"
	}
	fmt.Fprintf(stderr, "check --manifest %s: %s %s, container %s, image %s: port %d, ready path %s, GET %s; %s, then %s; grace %s; %s\n",
		opts.File, o.pod.Kind, o.pod.Name, o.pod.Container, o.image, o.port, o.readyPath, o.path, hookWords(o.hook()), o.stopSignal(), dur(o.pod.GracePeriod), propagation)
	return o, nil
}

// readManifest reads and parses the manifest file (at most
// kube.MaxManifestBytes). A larger one is refused naming its size when
// the file has one (a regular file, refused unread), and the limit.
func readManifest(file string, opts kube.Options) (kube.Pod, error) {
	fh, err := os.Open(file)
	if err != nil {
		return kube.Pod{}, runplan.Usagef("--manifest: %v", errors.Unwrap(err))
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > kube.MaxManifestBytes {
		return kube.Pod{}, runplan.Usagef("--manifest %s: %d bytes (%s), more than the %s a manifest may have; refused unread", file, fi.Size(), mebibytes(fi.Size()), kube.MaxManifestSize)
	}
	// Not a regular file (a pipe, /dev/stdin), or one growing: read one
	// byte past the limit to tell, and never name a size it did not read.
	data, err := io.ReadAll(io.LimitReader(fh, kube.MaxManifestBytes+1))
	if err != nil {
		return kube.Pod{}, runplan.Usagef("--manifest %s: %v", file, err)
	}
	if len(data) > kube.MaxManifestBytes {
		return kube.Pod{}, runplan.Usagef("--manifest %s: more than the %s a manifest may have; refused", file, kube.MaxManifestSize)
	}
	pod, err := kube.Read(file, data, opts)
	if err != nil {
		return kube.Pod{}, runplan.BadInput(err)
	}
	return pod, nil
}

// valueFromHint adds to a refused valueFrom entry, when the user tried
// --set target.env.NAME for it, why that cannot give it: --set edits the
// scenario made from the manifest, once the manifest has been read.
func valueFromHint(err error, sets []string) error {
	var vf *kube.ValueFromError
	if !errors.As(err, &vf) {
		return err
	}
	for _, s := range sets {
		if key, _, _ := strings.Cut(s, "="); key == "target.env."+vf.Name {
			return runplan.Usagef("%v (--set %s edits the scenario made from the manifest, after the manifest is read: it cannot give a valueFrom entry its value)", err, key)
		}
	}
	return err
}

// mebibytes is a size in MiB, to one decimal ("50 MiB", "4.5 MiB").
func mebibytes(n int64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
}

// manifestPort is the port the container serves on: --port, else the
// readiness probe's, else the first declared container port, else the
// image's only EXPOSEd TCP port, else 8080.
func manifestPort(flag int, pod kube.Pod, exposed []int) int {
	switch {
	case flag > 0:
		return flag
	case pod.Readiness != nil:
		return pod.Readiness.Port
	case len(pod.Ports) > 0:
		return pod.Ports[0].Port
	case len(exposed) == 1:
		return exposed[0]
	}
	return 8080
}

func durList(ds []time.Duration) string { return strings.Join(durStrings(ds), ", ") }
