package main

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
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// options reads the manifest and the image and checks the flags: what
// the scenario is made from, and the signals of the search (nil: none).
func (f *manifestFlags) options(ctx context.Context, stderr io.Writer) (manifestOpts, []string, error) {
	o := manifestOpts{path: f.path, runs: f.runs}
	switch {
	case f.file == "":
		return o, nil, usagef("check --manifest: needs a FILE")
	case f.runs < 1 || f.runs > 100:
		return o, nil, usagef("--runs: %d is out of range 1..100", f.runs)
	case f.port < 0 || f.port > 65535:
		return o, nil, usagef("--port: %d is out of range 1..65535", f.port)
	case !strings.HasPrefix(f.path, "/") || strings.ContainsAny(f.path, " \t\r\n"):
		return o, nil, usagef("--path: %q: must start with \"/\" and hold no spaces", scenarios.Shorten(f.path))
	}
	want, err := parseSignals(f.signals)
	if err != nil {
		return o, nil, err
	}
	if o.delays, o.stated, err = sweep(f.propagation, f.delay); err != nil {
		return o, nil, err
	}
	env, err := envFlags(f.envs)
	if err != nil {
		return o, nil, err
	}
	if o.pod, err = readManifest(f.file, kube.Options{Workload: f.workload, Container: f.container, Env: env}); err != nil {
		return o, nil, valueFromHint(err, f.sets)
	}
	for _, name := range slices.Sorted(maps.Keys(env)) {
		f.sets = append(f.sets, "target.env."+name+"="+env[name])
		for _, e := range o.pod.Env {
			if e.Name == name && e.Value != env[name] {
				fmt.Fprintf(stderr, "note: --env %s overrides the manifest's value (%s=%s)\n", name, name, e.Value)
			}
		}
	}
	if o.pod.GracePeriod < time.Second {
		return o, nil, usagef("%s: terminationGracePeriodSeconds %d: a grace period of 0 kills the pod at once (a forced deletion); nothing to emulate", f.file, int(o.pod.GracePeriod/time.Second))
	}
	o.image = o.pod.Image
	if f.image != "" {
		o.image = f.image
	}
	info, err := inspectImage(ctx, o.image)
	if err != nil && f.onCluster() && strings.Contains(err.Error(), "is not present on this Docker engine") {
		// On a cluster the nodes pull the image; its STOPSIGNAL is not
		// known here.
		fmt.Fprintf(stderr, "note: image %s is not on this Docker engine: the cluster pulls it as named; its STOPSIGNAL is not read here\n", o.image)
		err = nil
	}
	if err != nil {
		return o, nil, err
	}
	// The emulation sends only the signals a scenario may name.
	o.imageStopSignal = "SIGTERM"
	if s, ok := scenarios.ImageStopSignal(info.StopSignal); ok {
		o.imageStopSignal = s
	}
	o.port, o.readyPath = manifestPort(f.port, o.pod, info.TCPPorts), f.ready
	if o.readyPath == "" {
		o.readyPath = "/readyz"
		if r := o.pod.Readiness; r != nil {
			o.readyPath = r.Path
		}
	}
	fmt.Fprintf(stderr, "check --manifest %s: %s %s, container %s, image %s: port %d, ready path %s, GET %s; %s, then %s; grace %s; propagation %s (judged at %s)\n",
		f.file, o.pod.Kind, o.pod.Name, o.pod.Container, o.image, o.port, o.readyPath, o.path, hookWords(o.hook()), o.stopSignal(), dur(o.pod.GracePeriod), durList(o.delays), dur(o.stated))
	return o, want, nil
}

// readManifest reads and parses the manifest file (at most
// kube.MaxManifestBytes). A larger one is refused naming its size when
// the file has one (a regular file, refused unread), and the limit.
func readManifest(file string, opts kube.Options) (kube.Pod, error) {
	fh, err := os.Open(file)
	if err != nil {
		return kube.Pod{}, usagef("--manifest: %v", errors.Unwrap(err))
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > kube.MaxManifestBytes {
		return kube.Pod{}, usagef("--manifest %s: %d bytes (%s), more than the %s a manifest may have; refused unread", file, fi.Size(), mebibytes(fi.Size()), kube.MaxManifestSize)
	}
	// Not a regular file (a pipe, /dev/stdin), or one growing: read one
	// byte past the limit to tell, and never name a size it did not read.
	data, err := io.ReadAll(io.LimitReader(fh, kube.MaxManifestBytes+1))
	if err != nil {
		return kube.Pod{}, usagef("--manifest %s: %v", file, err)
	}
	if len(data) > kube.MaxManifestBytes {
		return kube.Pod{}, usagef("--manifest %s: more than the %s a manifest may have; refused", file, kube.MaxManifestSize)
	}
	pod, err := kube.Read(file, data, opts)
	if err != nil {
		return kube.Pod{}, badInput(err)
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
			return usagef("%v (--set %s edits the scenario made from the manifest, after the manifest is read: it cannot give a valueFrom entry its value)", err, key)
		}
	}
	return err
}

// mebibytes is a size in MiB, to one decimal ("50 MiB", "4.5 MiB").
func mebibytes(n int64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
}

// envFlags reads --env NAME=VALUE values.
func envFlags(envs setFlags) (map[string]string, error) {
	out := map[string]string{}
	for _, e := range envs {
		name, value, ok := strings.Cut(e, "=")
		if !ok || name == "" {
			return nil, usagef("--env: %q: want NAME=VALUE", e)
		}
		out[name] = value
	}
	return out, nil
}

// sweep reads --propagation and --delay: the delays swept, ascending and
// distinct, with the judged delay among them.
func sweep(propagation, delay string) ([]time.Duration, time.Duration, error) {
	ds := slices.Clone(defaultPropagation)
	stated := defaultDelay
	if propagation != "" {
		ds = nil
		for _, part := range strings.Split(propagation, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(part))
			if err != nil || d < 0 || d > time.Minute || d%(100*time.Millisecond) != 0 {
				return nil, 0, usagef("--propagation: %q: want durations of 0s..1m in steps of 100ms, comma-separated (e.g. 0s,1s,2s)", part)
			}
			ds = append(ds, d)
		}
		stated = slices.Max(ds)
	}
	if delay != "" {
		d, err := time.ParseDuration(delay)
		if err != nil || d < 0 || d > time.Minute || d%(100*time.Millisecond) != 0 {
			return nil, 0, usagef("--delay: %q: want a duration of 0s..1m in steps of 100ms", delay)
		}
		stated = d
	}
	ds = append(ds, stated)
	slices.Sort(ds)
	return slices.Compact(ds), stated, nil
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
