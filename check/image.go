package check

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
	"github.com/shutdownlab/shutdownlab/internal/runplan"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

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

// checkFile names the generated scenario in errors.
const checkFile = "(shutdownlab check)"

// Image checks an image: it runs check's scenario against it with the
// same plan, runner and report as run, the capacity variant and the
// signal search when the first verdict names a defect, and writes the
// verdict (to stdout and verdict.txt) and its JUnit file. Bad input (an
// expectation that does not check, an image not present, an output that
// cannot be written) is a runplan.UsageError, refused before anything
// runs; progress goes to stderr.
func Image(ctx context.Context, opts Options, stdout, stderr io.Writer) (Result, error) {
	p := runplan.New()
	exps, err := runplan.ParseExpectations(opts.Expect.Exprs, stderr)
	if err != nil {
		return Result{Code: runplan.ExitUsage}, err
	}
	p.Expect = runplan.Expectations{Parsed: exps, ReferenceVariant: opts.Expect.ReferenceVariant, JUnit: opts.Expect.JUnit}
	info, err := inspectImage(ctx, opts.Image)
	if err != nil {
		return Result{Code: runplan.ExitUsage}, err
	}
	o := checkOpts{image: opts.Image, readyPath: opts.ReadyPath, path: opts.Path, port: opts.Port, runs: opts.Runs, graceS: int(opts.Grace / time.Second)}
	o.fromImage(info, opts.Signal, stderr)
	gen, err := checkScenario(o)
	if err != nil {
		return Result{Code: runplan.ExitUsage}, runplan.BadInput(err)
	}
	p.Sets, p.Out = opts.Sets, opts.Out
	g, code, err := p.RunGenerated(ctx, gen, stdout, stderr)
	if g.Result == nil {
		return Result{Code: code}, err
	}
	o.asRun(p.Variants[g.Scenario])
	actions := checkActions(o, p.Variants[g.Scenario], g.Result)
	for i := range actions {
		// An interrupt cancels ctx: an action it left unmeasured is said
		// so, not blamed on the ready path.
		actions[i].Interrupted = ctx.Err() != nil
	}
	fs := append(verdict(actions), overlapFindings(actions, "")...)
	vcode := verdictCode(fs)
	if vcode == VerdictDefect && err == nil && ctx.Err() == nil {
		ex, xcode := measureMore(ctx, &o, actions, opts.Signals, opts.Sets, opts.Out, stdout, stderr)
		code = max(code, xcode)
		fs = append(verdictWith(actions, ex), overlapFindings(actions, "")...)
		fs = append(fs, ex.overlaps()...)
	}
	writeVerdict(stdout, g.Dir, o, fs)
	if g.JUnit != "" {
		if jerr := writeVerdictJUnit(g.JUnit, o, fs); jerr != nil {
			fmt.Fprintf(stderr, "shutdownlab: %v\n", jerr)
			code = max(code, gate.ExitHarness)
		} else {
			fmt.Fprintf(stdout, "wrote %s\n", g.JUnit)
		}
	}
	return Result{Code: code, Verdict: vcode}, err
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
		return info, runplan.Usagef("check: image %s is not present on this Docker engine (%s); shutdownlab never pulls: build or load it first (docker build -t %s .)", ref, eng.Host(), ref)
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
// valid runs in res, and says of its action what its runs recorded.
func checkActions(o checkOpts, vs []scenarios.Variant, res *report.Result) []actionRuns {
	var out []actionRuns
	for _, v := range vs {
		a := plannedAction(o, v)
		for _, rv := range res.Variants {
			if rv.Label == v.Label {
				a.asRecorded(rv.Runs)
				a.readRuns(rv.Runs)
			}
		}
		out = append(out, a)
	}
	return out
}

// plannedAction is variant v's action as check planned it: what the
// verdict says of it when no run recorded it.
func plannedAction(o checkOpts, v scenarios.Variant) actionRuns {
	a := actionRuns{Action: "signal " + v.Spec.Action.Signal, Signal: v.Spec.Action.Signal, GraceS: o.graceS,
		WindowS: int(v.Spec.Observe.Window.D() / time.Second)}
	if v.Spec.Action.Kind == scenarios.ActionStop {
		a.Action, a.Stop, a.Signal = fmt.Sprintf("docker stop -t %d", o.graceS), true, o.stopSignal
	}
	return a
}

// asRecorded sets what the first of runs that fired its action recorded
// of it: the signal a signal action sent, and the grace period (docker
// stop's -t, else the acted-on container's stop timeout as the engine
// read it back). A docker stop's signal, the image's STOPSIGNAL, is not
// recorded by name: the plan's stays.
func (a *actionRuns) asRecorded(runs []report.Run) {
	for _, r := range runs {
		ra := r.Meta.Action
		if ra == nil || ra.SentNs == 0 {
			continue
		}
		if g := recordedGrace(r.Meta); g != nil {
			a.GraceS = *g
			if a.Stop {
				a.Action = fmt.Sprintf("docker stop -t %d", *g)
			}
		}
		if !a.Stop && ra.Signal != "" {
			a.Action, a.Signal = "signal "+ra.Signal, ra.Signal
		}
		return
	}
}

// recordedGrace is the grace period a run recorded: docker stop's -t,
// else the acted-on container's stop timeout (nil: neither recorded).
func recordedGrace(m record.Meta) *int {
	if m.Action.StopTimeoutS != nil {
		return m.Action.StopTimeoutS
	}
	if i := m.Action.Replica; i >= 0 && i < len(m.Replicas) {
		return m.Replicas[i].StopTimeoutS
	}
	return nil
}

// readRuns adds runs to a: how many ran, those an interrupt cut short,
// those another session overlapped, and the metrics of the valid ones.
func (a *actionRuns) readRuns(runs []report.Run) {
	for _, r := range runs {
		a.Recorded++
		if r.Meta.Incomplete {
			a.Incomplete++
		}
		if o := r.Meta.OverlappedWith; len(o) > 0 {
			a.Overlapped = append(a.Overlapped, overlapWords(r.Meta.Run, o))
		}
		if r.Valid {
			a.Runs = append(a.Runs, r.Metrics)
		}
	}
}
