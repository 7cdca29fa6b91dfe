package check

import (
	"context"
	"fmt"
	"github.com/shutdownlab/shutdownlab/internal/runplan"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/kube"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// runManifestCheck runs the sweep with the same plan, runner and report as
// run, then the searches the verdict calls for, and prints the verdict.
func runManifestCheck(ctx context.Context, p *runplan.Plan, o manifestOpts, opts ManifestOptions, stdout, stderr io.Writer) (Result, error) {
	gen, err := manifestScenario(o)
	if err != nil {
		return Result{Code: runplan.ExitUsage}, runplan.BadInput(err)
	}
	p.Sets, p.Out = opts.Sets, opts.Out
	g, code, err := p.RunGenerated(ctx, gen, stdout, stderr)
	if g.Result == nil {
		return Result{Code: code}, err
	}
	facts := factsOf(p.Variants[g.Scenario], g.Result, o.stated)
	facts.ReadyPath = o.readyPath
	more := func() bool { return err == nil && ctx.Err() == nil }
	var searchDirs []string
	if sleeps := searchSleeps(facts); len(sleeps) > 0 && more() {
		var sdir string
		var scode int
		facts.Search, sdir, scode = runPreStopSearch(ctx, o, sleeps, opts, stdout, stderr)
		code, searchDirs = max(code, scode), append(searchDirs, sdir)
	}
	var signalFs []finding
	if podKilled(facts) && len(opts.Signals) > 0 && more() {
		sr, scode, serr := runSearch(ctx, o.checkOpts(), ownSignalFirst(opts.Signals, facts.StopSignal), append(podEnvSets(o.pod), opts.Sets...), opts.Out, stdout, stderr)
		if serr != nil {
			fmt.Fprintf(stderr, "shutdownlab: signal search: %v\n", serr)
		}
		signalFs = append(podSignalFindings(sr, facts.StopSignal), overlapFindings(sr.cands, "signal search, ")...)
		code, searchDirs = max(code, scode), append(searchDirs, sr.dir)
	}
	// An interrupt cancels ctx: the verdict says what it left unmeasured
	// instead of guessing why a delay has no valid run.
	facts.Interrupted = ctx.Err() != nil
	body, vcode := manifestVerdict(facts)
	text := manifestHeader(o, facts.Image) + body + manifestNotes(o, facts.Pods, signalFs, searchDirs)
	fmt.Fprint(stdout, "\n"+text)
	if werr := resultdir.WriteFileAtomic(filepath.Join(g.Dir, resultdir.VerdictFile), []byte(text)); werr != nil {
		fmt.Fprintf(stderr, "shutdownlab: %v\n", werr)
	}
	if g.JUnit != "" {
		if jerr := writeJUnit(g.JUnit, manifestJUnit(o, facts, vcode, text)); jerr != nil {
			fmt.Fprintf(stderr, "shutdownlab: %v\n", jerr)
			code = max(code, gate.ExitHarness)
		} else {
			fmt.Fprintf(stdout, "wrote %s\n", g.JUnit)
		}
	}
	return Result{Code: code, Verdict: vcode}, err
}

func runsWords(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// podKilled reports whether some run of the sweep was SIGKILLed.
func podKilled(f manifestFacts) bool {
	for _, d := range f.Delays {
		for _, r := range d.Runs {
			if r.PodKilled {
				return true
			}
		}
	}
	return false
}

// searchSleeps are the pre-stop search's candidate sleeps, when the
// stated delay was unsafe because of the propagation: the whole seconds
// from the delay (at least 1 s, and above the manifest's own sleep) up,
// three of them. None otherwise: a sleep cures nothing else.
func searchSleeps(f manifestFacts) []time.Duration {
	for _, d := range f.Delays {
		if d.Delay != f.Stated || d.safe() || len(d.Runs) == 0 || d.worst().PodFailedPropagation == 0 {
			continue
		}
		from := time.Duration(math.Ceil(f.Stated.Seconds())) * time.Second
		from = max(from, time.Second, f.Sleep.Truncate(time.Second)+time.Second)
		return []time.Duration{from, from + time.Second, from + 2*time.Second}
	}
	return nil
}

// runPreStopSearch measures the candidate sleeps at the stated delay, one
// variant each, in a result directory of its own.
func runPreStopSearch(ctx context.Context, o manifestOpts, sleeps []time.Duration, opts ManifestOptions, stdout, stderr io.Writer) ([]delayRuns, string, int) {
	so := o
	so.delays, so.sleeps, so.preStop = []time.Duration{o.stated}, sleeps, &kube.Hook{Kind: kube.HookSleep, Sleep: sleeps[0]}
	sc, err := manifestScenario(so)
	if err != nil {
		fmt.Fprintf(stderr, "shutdownlab: pre-stop search: %v\n", err)
		return nil, "", gate.ExitHarness
	}
	p := runplan.New()
	// The check's own plan printed the --set values' deprecations.
	p.Out, p.Sets = opts.Out, scenarios.RenameSets(opts.Sets)
	if err := p.Add(sc, stderr); err != nil {
		fmt.Fprintf(stderr, "shutdownlab: pre-stop search: %v\n", err)
		return nil, "", gate.ExitHarness
	}
	var dir string
	var res *report.Result
	p.OnReport = func(d string, r *report.Result, _ io.Writer) { dir, res = d, r }
	fmt.Fprintf(stderr, "check --manifest: pre-stop search at %s: preStop sleep %s\n", dur(o.stated), durList(sleeps))
	code, err := p.Execute(ctx, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shutdownlab: pre-stop search: %v\n", err)
	}
	if res == nil {
		return nil, dir, code
	}
	return factsOf(p.Variants[sc], res, o.stated).Delays, dir, code
}

// checkOpts is check's view of the manifest's container, for its signal
// search.
func (o manifestOpts) checkOpts() checkOpts {
	return checkOpts{image: o.image, readyPath: o.readyPath, path: o.path, port: o.port, signal: o.stopSignal(),
		stopSignal: o.stopSignal(), graceS: int(o.pod.GracePeriod / time.Second), runs: 1, command: o.pod.Command, args: o.pod.Args}
}

// podEnvSets are the manifest's literal env entries as --set values (the
// signal search's scenario is check's, which has none of its own).
func podEnvSets(pod kube.Pod) []string {
	var out []string
	for _, e := range pod.Env {
		out = append(out, "target.env."+e.Name+"="+e.Value)
	}
	return out
}

// manifestHeader is the verdict's first line; image is the image the
// runs ran (o's when "": none ran).
func manifestHeader(o manifestOpts, image string) string {
	p := o.pod
	return fmt.Sprintf("verdict for %s %s (%s), container %s, image %s, emulated on Docker (no --context: a real cluster measures it with check --manifest FILE --context CTX):\n", p.Kind, p.Name, p.File, p.Container, orWord(image, o.image))
}

// manifestNotes are the verdict's last lines: the signal search's
// findings (and its runs another session overlapped), what the emulation
// ran (pods behind the proxy; o's when 0: none ran) and did not run, and
// where the searches' measurements are.
func manifestNotes(o manifestOpts, pods int, signalFs []finding, dirs []string) string {
	var b strings.Builder
	for _, f := range signalFs {
		if f.Kind != findOverlap {
			fmt.Fprintf(&b, "    - %s\n", f.line())
		}
	}
	for _, f := range signalFs {
		if f.Kind == findOverlap {
			fmt.Fprintf(&b, "  note: %s\n", f.Text)
		}
	}
	p := o.pod
	if pods == 0 {
		pods = o.pods()
	}
	serving := fmt.Sprintf("%d pods behind the proxy (replicas %d", pods, p.Replicas)
	if pods != p.Replicas {
		serving += fmt.Sprintf("; at least %d, at most %d run)", manifestMinPods, manifestMaxPods)
	} else {
		serving += ")"
	}
	if why := rolloutWhy(p); why != "" {
		fmt.Fprintf(&b, "  emulated: one pod's termination, %s; %s\n", serving, why)
	} else {
		fmt.Fprintf(&b, "  emulated: one step of the rolling update (maxSurge %d, maxUnavailable %d), %s: one old pod terminated and its new pod joining once ready; the update's other %s the same step, not run again\n",
			p.Strategy.MaxSurge, p.Strategy.MaxUnavailable, serving, stepsWords(p.Replicas-1))
	}
	for _, u := range p.Unsupported {
		fmt.Fprintf(&b, "  not emulated: %s\n", u)
	}
	for _, d := range dirs {
		if d != "" {
			fmt.Fprintf(&b, "  search measurements: %s\n", filepath.Join(d, resultdir.MarkdownFile))
		}
	}
	return b.String()
}

// stepsWords names the steps a rollout of n more pods repeats.
func stepsWords(n int) string {
	if n == 1 {
		return "step repeats"
	}
	return fmt.Sprintf("%d steps repeat", max(n, 0))
}

// ownSignalFirst puts the pod's own stop signal first among the search's
// signals, so it is measured on its own too.
func ownSignalFirst(want []string, own string) []string {
	out := []string{own}
	for _, s := range want {
		if s != own {
			out = append(out, s)
		}
	}
	return out
}

// podSignalFindings are the signal search's lines for a SIGKILLed pod:
// when its own stop signal measured clean on its own, the SIGKILL was the
// grace period's, and no other signal is recommended; otherwise check's
// recommendation.
func podSignalFindings(sr searchResult, own string) []finding {
	for _, a := range sr.cands {
		if a.Signal != own {
			continue
		}
		if text, clean := candidateText(a, sr.watch); clean {
			return []finding{{Kind: "search", Text: fmt.Sprintf(
				"signal search: %s, the pod's own stop signal, stops the image cleanly on its own (%s): the SIGKILL came from the grace period, too short for the hook and this load's drain",
				own, strings.TrimPrefix(text, own+": clean: "))}}
		}
	}
	return searchFindings(sr)
}
