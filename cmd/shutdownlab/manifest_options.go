package main

import (
	"slices"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/check"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// options checks the flags and fills o from them: the search's signals
// (nil: none), the delays swept and judged, the --env values.
func (f *manifestFlags) options(o *check.ManifestOptions) (err error) {
	switch {
	case o.File == "":
		return usagef("check --manifest: needs a FILE")
	case o.Runs < 1 || o.Runs > 100:
		return usagef("--runs: %d is out of range 1..100", o.Runs)
	case o.Port < 0 || o.Port > 65535:
		return usagef("--port: %d is out of range 1..65535", o.Port)
	case !strings.HasPrefix(o.Path, "/") || strings.ContainsAny(o.Path, " \t\r\n"):
		return usagef("--path: %q: must start with \"/\" and hold no spaces", scenarios.Shorten(o.Path))
	}
	if o.Signals, err = parseSignals(f.signals); err != nil {
		return err
	}
	if o.Delays, o.Stated, err = sweep(f.propagation, f.delay); err != nil {
		return err
	}
	if o.Env, err = envFlags(f.envs); err != nil {
		return err
	}
	o.Sets = f.sets
	o.Kubeconfig, o.Context, o.Registry = f.cluster.kubeconfig, f.cluster.context, f.cluster.registry
	return nil
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
	ds := slices.Clone(check.DefaultPropagation)
	stated := check.DefaultDelay
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
