package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/check"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

const checkUsage = `Usage: shutdownlab check IMAGE [--ready-path /readyz] [--path /] [--port N] [--stop-signal SIG] [--search-signals SIG,...|none] [--runs N] [--grace-period 10s] [--env NAME=VALUE]... [--set key=value]... [--expect EXPR]... [--junit FILE] [--report-only] [--out DIR]

The first command to run on your own image, and a CI gate. It starts IMAGE
(a local image, never pulled) exactly as it ships: its own environment,
entrypoint, command, user and STOPSIGNAL, plus only what you add with
--env or --set target.env.NAME=VALUE (an override of the image's own value
is reported). On a private network it drives 20 keep-alive clients at PATH
from a container beside it, and stops it two ways, each its own variant:
its stop signal (docker kill -s STOPSIGNAL; SIGTERM when the image sets
none; --stop-signal sends another) and docker stop (STOPSIGNAL, the grace
period of --grace-period, then SIGKILL). Then it
says in plain words whether it drops in-flight work, whether it exits by
itself and how fast, which known broken-shutdown signature it shows, and
what would make it clean; troubles that are not about shutdown (failures
before any signal) are named apart. It writes the usual report (plus
verdict.txt) under DIR/<timestamp>-check-<image>/.

When the verdict names a defect, the signal search measures the other
signals servers use for a graceful stop (--search-signals, default
SIGQUIT,SIGINT,SIGTERM,SIGHUP,SIGWINCH,SIGUSR1; none: no search), one
short run each in a result directory of its own, and recommends the
STOPSIGNAL that measured clean, or says that none did and what is left.

The image must answer GET READY-PATH with 200 once it is ready, and PATH
(which may carry a query) must be something it serves. The port is --port,
else the image's only EXPOSEd TCP port, else 8080 (PORT is never set).
--set overrides the generated scenario like run's (e.g. --set
load.duration=4s, --set target.init=true). --signal, --signals and --grace
are the deprecated names of --stop-signal, --search-signals and
--grace-period (YAML: action.stop_signal, target.grace_period).
Exit 0: clean (every run valid, every --expect held); 1: the verdict names
a defect, or an expectation failed (--report-only: 0 for a defect); 2: it
could not tell (a run invalid, a phase split inconclusive) or the harness
failed; 64: bad usage or input. --junit writes one test case per action
and one for the verdict, failing with the defect; --expect's own verdicts
go to FILE-expectations.xml beside it.

shutdownlab check --manifest FILE checks a Kubernetes manifest's pod and its
image together ("will this Deployment roll without errors?"): see
shutdownlab check --manifest FILE -h.
`

// cmdCheck checks a user's image (package check) with the flags' choices.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	c := newCommand("check", checkUsage)
	o := check.Options{}
	c.fs.StringVar(&o.ReadyPath, "ready-path", "/readyz", "GET path that answers 200 once the image is ready")
	c.fs.StringVar(&o.Path, "path", "/", "request target the clients send GETs to (a query is allowed)")
	c.fs.IntVar(&o.Port, "port", 0, "port the image listens on (default: its only EXPOSEd TCP port, else 8080)")
	c.fs.StringVar(&o.Signal, "stop-signal", "", "the stop signal the signal variant sends (docker kill -s; default: the image's STOPSIGNAL, else SIGTERM)")
	c.fs.IntVar(&o.Runs, "runs", 1, "repetitions per action, 1..100")
	c.fs.DurationVar(&o.Grace, "grace-period", 10*time.Second, "the grace period: the container's stop timeout, whole seconds (docker stop -t)")
	c.fs.StringVar(&o.Out, "out", "results/runs", "root directory for the result directory")
	signals := c.fs.String("search-signals", "", "the stop signals the search tries when the verdict finds a defect, comma-separated (default "+strings.Join(check.SearchSignals, ",")+`; "none": no search)`)
	c.alias("signal", "stop-signal")
	c.alias("signals", "search-signals")
	c.alias("grace", "grace-period")
	reportOnly := c.fs.Bool("report-only", false, "exit 0 when the verdict names a defect (the report is still written; a run check could not judge still exits 2)")
	var exp expectFlags
	exp.register(c)
	var sets, envs setFlags
	c.fs.Var(&sets, "set", "override a field of the generated scenario, e.g. --set load.duration=4s (repeatable)")
	c.fs.Var(&envs, "env", "NAME=VALUE added to the image's own environment (= --set target.env.NAME=VALUE; repeatable; an override of the image's own value is reported)")
	pos, err := c.parse(args, stdout)
	if err != nil {
		return exitUsage, err
	}
	if err := c.checkAliases(stderr); err != nil {
		return exitUsage, err
	}
	if err := checkFlags(&o, pos); err != nil {
		return exitUsage, err
	}
	if o.Signals, err = parseSignals(*signals); err != nil {
		return exitUsage, err
	}
	for _, e := range envs {
		name, value, ok := strings.Cut(e, "=")
		if !ok || name == "" {
			return exitUsage, usagef("--env: %q: want NAME=VALUE", e)
		}
		sets = append(sets, "target.env."+name+"="+value)
	}
	o.Sets, o.Expect = sets, exp.check()
	res, err := check.Image(ctx, o, stdout, stderr)
	return verdictExit(res, *reportOnly), err
}

// verdictExit is a check's exit code: its runs' and expectations', or
// its verdict's when worse (--report-only: a defect is not).
func verdictExit(res check.Result, reportOnly bool) int {
	if reportOnly && res.Verdict == check.VerdictDefect {
		res.Verdict = check.VerdictClean
	}
	return max(res.Code, res.Verdict)
}

// checkFlags checks the positional image and the flag values.
func checkFlags(o *check.Options, pos []string) error {
	switch {
	case len(pos) != 1:
		return usagef("check needs exactly one IMAGE (a local image name), got %d arguments", len(pos))
	case strings.ContainsAny(pos[0], " \t\r\n") || pos[0] == "":
		return usagef("check: %q is not an image reference", scenarios.Shorten(pos[0]))
	case o.Runs < 1 || o.Runs > 100:
		return usagef("--runs: %d is out of range 1..100", o.Runs)
	case o.Grace < time.Second || o.Grace > 10*time.Minute || o.Grace%time.Second != 0:
		return usagef("--grace-period: %s: want whole seconds in 1s..10m (Docker takes seconds)", o.Grace)
	case o.Port < 0 || o.Port > 65535:
		return usagef("--port: %d is out of range 1..65535", o.Port)
	case !strings.HasPrefix(o.Path, "/") || strings.ContainsAny(o.Path, " \t\r\n"):
		return usagef("--path: %q: must start with \"/\" and hold no spaces", scenarios.Shorten(o.Path))
	case !strings.HasPrefix(o.ReadyPath, "/") || strings.ContainsAny(o.ReadyPath, " \t\r\n?"):
		return usagef("--ready-path: %q: must start with \"/\" and hold no query or spaces", scenarios.Shorten(o.ReadyPath))
	}
	if o.Signal != "" {
		if _, ok := scenarios.SendableSignal(o.Signal); !ok {
			return usagef("--stop-signal: %q: want one of %s", scenarios.Shorten(o.Signal), strings.Join(scenarios.Signals, ", "))
		}
	}
	o.Image = pos[0]
	return nil
}

// parseSignals reads --search-signals: a comma-separated list of signal names or
// numbers, or "none" for no search; "" is the default list.
func parseSignals(s string) ([]string, error) {
	switch strings.TrimSpace(s) {
	case "":
		return check.SearchSignals, nil
	case "none":
		return nil, nil
	}
	var out []string
	for _, part := range strings.Split(s, ",") {
		sig, ok := scenarios.SendableSignal(part)
		if !ok || sig == "SIGKILL" {
			return nil, usagef("--search-signals: %q: want a comma-separated list of %s (not SIGKILL), or none", part, strings.Join(scenarios.Signals, ", "))
		}
		if !slices.Contains(out, sig) {
			out = append(out, sig)
		}
	}
	return out, nil
}
