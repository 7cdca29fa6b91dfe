package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

const checkUsage = `Usage: shutdownlab check IMAGE [--ready-path /readyz] [--path /] [--port N] [--signal SIG] [--signals SIG,...|none] [--runs N] [--grace 10s] [--env NAME=VALUE]... [--set key=value]... [--expect EXPR]... [--junit FILE] [--report-only] [--out DIR]

The first command to run on your own image, and a CI gate. It starts IMAGE
(a local image, never pulled) exactly as it ships: its own environment,
entrypoint, command, user and STOPSIGNAL, plus only what you add with
--env or --set target.env.NAME=VALUE (an override of the image's own value
is reported). On a private network it drives 20 keep-alive clients at PATH
from a container beside it, and stops it two ways, each its own variant:
its stop signal (docker kill -s STOPSIGNAL; SIGTERM when the image sets
none) and docker stop (STOPSIGNAL, the grace period, then SIGKILL). Then it
says in plain words whether it drops in-flight work, whether it exits by
itself and how fast, which known broken-shutdown signature it shows, and
what would make it clean; troubles that are not about shutdown (failures
before any signal) are named apart. It writes the usual report (plus
verdict.txt) under DIR/<timestamp>-check-<image>/.

When the verdict names a defect, the signal search measures the other
signals servers use for a graceful stop (--signals, default
SIGQUIT,SIGINT,SIGTERM,SIGHUP,SIGWINCH,SIGUSR1; none: no search), one
short run each in a result directory of its own, and recommends the
STOPSIGNAL that measured clean, or says that none did and what is left.

The image must answer GET READY-PATH with 200 once it is ready, and PATH
(which may carry a query) must be something it serves. The port is --port,
else the image's only EXPOSEd TCP port, else 8080 (PORT is never set).
--set overrides the generated scenario like run's (e.g. --set
load.duration=4s, --set target.init=true).
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

// checkOpts are the choices a check scenario is made from.
type checkOpts struct {
	image      string
	readyPath  string
	path       string // request target, query included
	port       int
	signal     string // the signal variant's signal
	stopSignal string // what docker stop sends (the image's STOPSIGNAL)
	graceS     int
	runs       int
	// command and args replace the image's ENTRYPOINT and CMD (a
	// manifest's; nil: the image's own).
	command, args []string
	// clients is how many keep-alive clients the load has (0: check's
	// default, checkClients).
	clients int
	// searchDir is the signal search's result directory ("" without one).
	searchDir string
	// capacityDir is the capacity variant's result directory ("" without
	// one).
	capacityDir string
}

// checkClients is how many keep-alive clients check drives by default.
const checkClients = 20

// clientCount is o.clients, or checkClients when unset.
func (o checkOpts) clientCount() int {
	if o.clients > 0 {
		return o.clients
	}
	return checkClients
}

// cmdCheck runs the built-in check scenario against a user's image with
// the same plan, runner and report as run, then prints the verdict.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	c := newCommand("check", checkUsage)
	readyPath := c.fs.String("ready-path", "/readyz", "GET path that answers 200 once the image is ready")
	path := c.fs.String("path", "/", "request target the clients send GETs to (a query is allowed)")
	port := c.fs.Int("port", 0, "port the image listens on (default: its only EXPOSEd TCP port, else 8080)")
	signal := c.fs.String("signal", "", "signal of the signal variant (default: the image's STOPSIGNAL, else SIGTERM)")
	runs := c.fs.Int("runs", 1, "repetitions per action, 1..100")
	grace := c.fs.Duration("grace", 10*time.Second, "grace period: the container's stop timeout, whole seconds (docker stop -t)")
	out := c.fs.String("out", "results/runs", "root directory for the result directory")
	signals := c.fs.String("signals", "", "signals the search tries when the verdict finds a defect, comma-separated (default "+strings.Join(searchSignals, ",")+`; "none": no search)`)
	reportOnly := c.fs.Bool("report-only", false, "exit 0 when the verdict names a defect (the report is still written; a run check could not judge still exits 2)")
	p := &runPlan{vars: map[*scenarios.Scenario][]scenarios.Variant{}, exps: map[*scenarios.Scenario][]*gate.Expectation{}}
	p.exp.register(c.fs)
	var sets, envs setFlags
	c.fs.Var(&sets, "set", "override a field of the generated scenario, e.g. --set load.duration=4s (repeatable)")
	c.fs.Var(&envs, "env", "NAME=VALUE added to the image's own environment (= --set target.env.NAME=VALUE; repeatable; an override of the image's own value is reported)")
	pos, err := c.parse(args, stdout)
	if err != nil {
		return exitUsage, err
	}
	o := checkOpts{readyPath: *readyPath, path: *path, port: *port, runs: *runs}
	if err := o.checkFlags(pos, *grace, *signal); err != nil {
		return exitUsage, err
	}
	want, err := parseSignals(*signals)
	if err != nil {
		return exitUsage, err
	}
	for _, e := range envs {
		name, value, ok := strings.Cut(e, "=")
		if !ok || name == "" {
			return exitUsage, usagef("--env: %q: want NAME=VALUE", e)
		}
		sets = append(sets, "target.env."+name+"="+value)
	}
	if err := p.exp.parse(); err != nil {
		return exitUsage, err
	}
	info, err := inspectImage(ctx, o.image)
	if err != nil {
		return exitUsage, err
	}
	o.fromImage(info, *signal, stderr)
	gen, err := checkScenario(o)
	if err != nil {
		return exitUsage, badInput(err)
	}
	g, code, err := p.runGenerated(ctx, gen, sets, *out, stdout, stderr)
	if g.res == nil {
		return code, err
	}
	sc, dir, res, junit := g.sc, g.dir, g.res, g.junit
	o.asRun(p.vars[sc])
	actions := checkActions(o, p.vars[sc], res)
	for i := range actions {
		// An interrupt cancels ctx: an action it left unmeasured is said
		// so, not blamed on the ready path.
		actions[i].Interrupted = ctx.Err() != nil
	}
	fs := append(verdict(actions), overlapFindings(actions, "")...)
	vcode := verdictCode(fs)
	if vcode == verdictDefect && err == nil && ctx.Err() == nil {
		var ex extras
		var xcode int
		ex, xcode = measureMore(ctx, &o, actions, want, sets, *out, stdout, stderr)
		code = max(code, xcode)
		fs = append(verdictWith(actions, ex), overlapFindings(actions, "")...)
		fs = append(fs, ex.overlaps()...)
	}
	writeVerdict(stdout, dir, o, fs)
	if junit != "" {
		if jerr := writeVerdictJUnit(junit, o, fs); jerr != nil {
			fmt.Fprintf(stderr, "shutdownlab: %v\n", jerr)
			code = max(code, exitInvalid)
		} else {
			fmt.Fprintf(stdout, "wrote %s\n", junit)
		}
	}
	if *reportOnly && vcode == verdictDefect {
		vcode = verdictClean
	}
	return max(code, vcode), err
}

// checkFile names the generated scenario in errors.
const checkFile = "(shutdownlab check)"

// checkFlags checks the positional image and the flag values.
func (o *checkOpts) checkFlags(pos []string, grace time.Duration, signal string) error {
	switch {
	case len(pos) != 1:
		return usagef("check needs exactly one IMAGE (a local image name), got %d arguments", len(pos))
	case strings.ContainsAny(pos[0], " \t\r\n") || pos[0] == "":
		return usagef("check: %q is not an image reference", scenarios.Shorten(pos[0]))
	case o.runs < 1 || o.runs > 100:
		return usagef("--runs: %d is out of range 1..100", o.runs)
	case grace < time.Second || grace > 10*time.Minute || grace%time.Second != 0:
		return usagef("--grace: %s: want whole seconds in 1s..10m (Docker takes seconds)", grace)
	case o.port < 0 || o.port > 65535:
		return usagef("--port: %d is out of range 1..65535", o.port)
	case !strings.HasPrefix(o.path, "/") || strings.ContainsAny(o.path, " \t\r\n"):
		return usagef("--path: %q: must start with \"/\" and hold no spaces", scenarios.Shorten(o.path))
	case !strings.HasPrefix(o.readyPath, "/") || strings.ContainsAny(o.readyPath, " \t\r\n?"):
		return usagef("--ready-path: %q: must start with \"/\" and hold no query or spaces", scenarios.Shorten(o.readyPath))
	}
	if signal != "" {
		if _, ok := scenarios.SendableSignal(signal); !ok {
			return usagef("--signal: %q: want one of %s", scenarios.Shorten(signal), strings.Join(scenarios.Signals, ", "))
		}
	}
	o.image, o.graceS = pos[0], int(grace/time.Second)
	return nil
}

// inspectImage reads the image's configuration; a missing image is bad
// input (shutdownlab never pulls).
func inspectImage(ctx context.Context, ref string) (docker.ImageInfo, error) {
	eng, err := docker.New(ctx)
	if err != nil {
		return docker.ImageInfo{}, err
	}
	defer eng.Close()
	info, err := eng.ImageInfo(ctx, ref)
	if errors.Is(err, docker.ErrImageNotFound) {
		return info, usagef("check: image %s is not present on this Docker engine (%s); shutdownlab never pulls: build or load it first (docker build -t %s .)", ref, eng.Host(), ref)
	}
	return info, err
}

// fromImage fills what the flags left to the image: the port (its only
// EXPOSEd TCP port), the stop signal, and the signal variant's signal.
func (o *checkOpts) fromImage(info docker.ImageInfo, signal string, stderr io.Writer) {
	if o.port == 0 {
		o.port = 8080
		if len(info.TCPPorts) == 1 {
			o.port = info.TCPPorts[0]
		}
	}
	stop, ok := scenarios.ImageStopSignal(info.StopSignal)
	o.stopSignal = stop
	switch {
	case signal != "":
		o.signal, _ = scenarios.SendableSignal(signal)
	case ok:
		o.signal = stop
	default:
		o.signal = "SIGTERM"
		fmt.Fprintf(stderr, "note: STOPSIGNAL %s is not one the signal variant can send (%s): it sends SIGTERM; docker stop still sends %s\n",
			info.StopSignal, strings.Join(scenarios.Signals, ", "), info.StopSignal)
	}
	fmt.Fprintf(stderr, "check %s: port %d, ready path %s, GET %s; signal %s, docker stop with STOPSIGNAL %s and a %d s grace period\n",
		o.image, o.port, o.readyPath, o.path, o.signal, o.stopSignal, o.graceS)
}

// checkScenario is the scenario check runs (saved with the results as
// scenario.yaml): direct topology, 20 keep-alive clients on the path
// (staggered by the load agent), the signal 3 s in, and a variant axis
// over the action: the signal, or docker stop with the image's own stop
// signal and the grace period as the container's stop timeout.
func checkScenario(o checkOpts) (*scenarios.Scenario, error) {
	sp := scenarios.Spec{
		Name: checkName(o.image),
		Description: fmt.Sprintf("shutdownlab check: 20 keep-alive clients sending GET %s to image %s, then at 3 s %s (docker kill -s) or docker stop (STOPSIGNAL %s, %d s grace period).",
			o.path, o.image, o.signal, o.stopSignal, o.graceS),
		Runs:    o.runs,
		Target:  checkTarget(o),
		Load:    checkLoad(o.clientCount(), scenarios.Seconds(6), o.path),
		Action:  scenarios.Action{Kind: scenarios.ActionSignal, Signal: o.signal, At: scenarios.Seconds(3)},
		Observe: scenarios.Observe{Window: scenarios.Seconds(o.graceS + 5)},
	}
	axes := []scenarios.Axis{{Key: "action.kind", Values: []string{string(scenarios.ActionSignal), string(scenarios.ActionStop)}}}
	return scenarios.Generate(checkFile, "Generated by `shutdownlab check "+o.image+"`.", sp, axes)
}

// checkTarget is the target of check's scenarios (its own and the
// signal search's): the image, the grace period as its stop timeout, and
// what it speaks.
func checkTarget(o checkOpts) scenarios.Target {
	grace := scenarios.Seconds(o.graceS)
	path, _, _ := strings.Cut(o.path, "?")
	return scenarios.Target{Image: o.image, Command: o.command, Args: o.args, StopTimeout: &grace,
		Protocol: scenarios.Protocol{Port: o.port, ReadyPath: o.readyPath, Paths: []string{path}}}
}

// checkLoad is the load of check's scenarios: clients keep-alive clients
// sending GET path for d.
func checkLoad(clients int, d scenarios.Duration, path string) scenarios.LoadSpec {
	return scenarios.LoadSpec{Clients: clients, Duration: d, Mix: []scenarios.Request{{Method: "GET", Path: path}}}
}

// checkName is the scenario name for an image: "check-" and the image
// reference with every character a name may not hold made '-'.
func checkName(image string) string {
	name := []byte("check-" + image)
	for i, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			name[i] = '-'
		}
	}
	return string(name)
}

// asRun takes the runs and the grace period from the variants as they
// ran (--set included).
func (o *checkOpts) asRun(vs []scenarios.Variant) {
	if len(vs) > 0 {
		sp := vs[0].Spec
		o.runs = sp.Runs
		if sp.Target.StopTimeout != nil {
			o.graceS = int(sp.Target.StopTimeout.D() / time.Second)
		}
	}
}

// writeVerdict writes the verdict to w and to verdict.txt in the result
// directory.
func writeVerdict(w io.Writer, dir string, o checkOpts, fs []finding) {
	text := verdictText(o, fs)
	fmt.Fprint(w, "\n"+text)
	if err := resultdir.WriteFileAtomic(filepath.Join(dir, resultdir.VerdictFile), []byte(text)); err != nil {
		fmt.Fprintf(w, "shutdownlab: %v\n", err)
	}
}

// checkActions pairs each variant of the check with the metrics of its
// valid runs in res.
func checkActions(o checkOpts, vs []scenarios.Variant, res *report.Result) []actionRuns {
	var out []actionRuns
	for _, v := range vs {
		a := actionRuns{Action: "signal " + v.Spec.Action.Signal, Signal: v.Spec.Action.Signal, GraceS: o.graceS,
			WindowS: int(v.Spec.Observe.Window.D() / time.Second)}
		if v.Spec.Action.Kind == scenarios.ActionStop {
			a.Action, a.Stop, a.Signal = fmt.Sprintf("docker stop -t %d", o.graceS), true, o.stopSignal
		}
		for _, rv := range res.Variants {
			if rv.Label != v.Label {
				continue
			}
			for _, r := range rv.Runs {
				a.Recorded++
				if r.Meta.Incomplete {
					a.Incomplete++
				}
				if o := r.Meta.OverlappedWith; len(o) > 0 {
					a.Overlapped = append(a.Overlapped, overlapWords(r.Meta.Run, o))
				}
				if rm, err := fromReport(&r.Metrics); r.Valid && err == nil {
					a.Runs = append(a.Runs, rm)
				}
			}
		}
		out = append(out, a)
	}
	return out
}
