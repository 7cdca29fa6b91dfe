package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/document"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

const runUsage = `Usage: shutdownlab run SCENARIO... [--runs N] [--out DIR] [--set key=value]... [--image NAME] [--expect EXPR]... [--junit FILE] [--kubeconfig FILE] [--context CTX] [--registry HOST[:PORT][/PREFIX]]

SCENARIO is a catalog name (see 'shutdownlab list') or a path to a .yaml file.
Each scenario's runs are written to DIR/<timestamp>-<scenario>/ with report.md and CSVs.
Everything is checked before anything starts (scenario files, --set values,
expectations and the metrics they name, --baseline-variant, --image, and
that --out and --junit can be written); a refusal exits 64 and writes nothing.
A scenario with platform: kubernetes (or --set platform=kubernetes) runs on
the cluster of --kubeconfig/--context (default: the usual kubeconfig rules),
in a namespace of its own that it deletes at the end; --registry (default
$SHUTDOWNLAB_REGISTRY) is where it pushes the images its pods run.
Exit 0: all runs valid and every expectation held; 1: an expectation failed;
2: a run was invalid or the harness failed; 64: bad usage or input.
`

// setFlags collects repeated --set key=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// runPlan is a checked run command: every scenario loaded, expanded and
// paired with its expectations.
type runPlan struct {
	scs  []*scenarios.Scenario
	vars map[*scenarios.Scenario][]scenarios.Variant
	exps map[*scenarios.Scenario][]*gate.Expectation
	exp  expectFlags
	sets []string
	out  string
	// cluster selects the cluster of platform kubernetes.
	cluster clusterFlags
	// onReport, when set, is called with each scenario's result directory
	// and report after its table (check prints its verdict there).
	onReport func(dir string, res *report.Result, stdout io.Writer)
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	p, err := planRun(ctx, args, stdout, stderr)
	if err != nil {
		return exitUsage, err
	}
	return p.execute(ctx, stdout, stderr)
}

// execute runs every scenario of a checked plan (run's, or check's), writes
// the reports and judges the expectations; it returns the exit code.
func (p *runPlan) execute(ctx context.Context, stdout, stderr io.Writer) (int, error) {
	r, err := runner.New(ctx, runner.Options{Out: p.out, Sets: p.sets, Progress: runner.NewProgress(stderr),
		Kube: p.cluster.kube(), Registry: p.cluster.registry})
	if err != nil {
		return exitInvalid, err
	}
	defer r.Close()
	code := exitOK
	for _, sc := range p.scs {
		oc, err := r.RunScenario(ctx, sc)
		if oc.Dir != "" && oc.Runs == 0 {
			// Nothing was measured: leave no empty result directory behind.
			if rerr := os.RemoveAll(oc.Dir); rerr == nil {
				fmt.Fprintf(stderr, "shutdownlab: %s: no run started; removed %s\n", sc.Name(), oc.Dir)
			}
			oc.Dir = ""
		}
		if oc.Dir != "" {
			code = max(code, p.reportScenario(sc, oc, err != nil, stdout, stderr))
		}
		if err != nil {
			return exitInvalid, err
		}
		if oc.Invalid > 0 || oc.Incomplete > 0 {
			code = exitInvalid
		}
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "interrupted: remaining scenarios skipped")
			return exitInvalid, nil
		}
	}
	return code, nil
}

// reportScenario writes one scenario's report and judges its
// expectations, returning the exit code they give.
func (p *runPlan) reportScenario(sc *scenarios.Scenario, oc runner.Outcome, failed bool, stdout, stderr io.Writer) int {
	res, err := document.Rebuild(oc.Dir)
	if err != nil {
		fmt.Fprintf(stderr, "shutdownlab: report %s: %v\n", oc.Dir, err)
		return exitInvalid
	}
	noteUnreadable(stderr, res)
	fmt.Fprintln(stdout)
	_ = report.WriteTerminalTable(stdout, res)
	fmt.Fprintf(stdout, "\n%s: %d runs (%d invalid, %d incomplete) -> %s/%s\n", sc.Name(), oc.Runs, oc.Invalid, oc.Incomplete, oc.Dir, resultdir.MarkdownFile)
	if p.onReport != nil {
		p.onReport(oc.Dir, res, stdout)
	}
	failures := oc.Invalid + oc.Incomplete
	if failed {
		failures++
	}
	code, err := p.exp.judge(stdout, res, p.exps[sc], failures, len(p.scs))
	if err != nil {
		fmt.Fprintf(stderr, "shutdownlab: %v\n", err)
	}
	return code
}

// planRun parses the command line and checks everything that can be
// checked before a container starts or a directory is written: the flags,
// an image named by --image or --set target.image (present on the
// engine), the scenarios and their expectations, the outputs, then the
// images the scenario files name.
func planRun(ctx context.Context, args []string, stdout, stderr io.Writer) (*runPlan, error) {
	c := newCommand("run", runUsage)
	runs := c.fs.Int("runs", 0, "repetitions per variant, 1..100 (default: the scenario's runs)")
	out := c.fs.String("out", "results/runs", "root directory for result directories")
	p := &runPlan{vars: map[*scenarios.Scenario][]scenarios.Variant{}, exps: map[*scenarios.Scenario][]*gate.Expectation{}}
	p.exp.register(c.fs)
	var sets setFlags
	c.fs.Var(&sets, "set", "override a scenario field by dotted path, e.g. --set load.duration=4s (repeatable; value at most 64 KiB)")
	image := c.fs.String("image", "", "run this local image instead of the built-in target (= --set target.image=NAME; never pulled)")
	p.cluster.register(c.fs)
	names, err := c.parse(args, stdout)
	if err != nil {
		return nil, err
	}
	if err := p.cluster.check(); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, usagef("run needs at least one scenario (see 'shutdownlab list')")
	}
	if c.isSet("runs") && (*runs < 1 || *runs > 100) {
		return nil, usagef("--runs: %d is out of range 1..100", *runs)
	}
	if err := p.exp.parse(); err != nil {
		return nil, err
	}
	if *runs > 0 {
		sets = append(setFlags{"runs=" + strconv.Itoa(*runs)}, sets...)
	}
	if *image != "" {
		sets = append(sets, "target.image="+*image)
	}
	if err := scenarios.CheckSets(sets); err != nil {
		return nil, badInput(err)
	}
	// An image given on the command line first: when it is missing, that
	// is the error to fix, not what the scenario says about the paths it
	// declares.
	flagImages := setImages(sets)
	if err := checkImageRefs(ctx, flagImages); err != nil {
		return nil, err
	}
	p.sets, p.out = sets, *out
	if err := p.loadScenarios(names, stderr); err != nil {
		return nil, err
	}
	if err := p.checkOutputs(); err != nil {
		return nil, err
	}
	var all []scenarios.Variant
	for _, sc := range p.scs {
		all = append(all, p.vars[sc]...)
	}
	return p, checkImages(ctx, all, flagImages)
}

// loadScenarios loads, expands and checks every scenario and its
// expectations.
func (p *runPlan) loadScenarios(names []string, stderr io.Writer) error {
	for _, n := range names {
		sc, err := scenarios.Find(n)
		if err != nil {
			return badInput(err)
		}
		if err := p.addScenario(sc, stderr); err != nil {
			return err
		}
	}
	return nil
}

// addScenario expands a loaded scenario with the plan's --set values,
// checks its expectations and adds it to the plan.
func (p *runPlan) addScenario(sc *scenarios.Scenario, stderr io.Writer) error {
	vs, err := sc.Expand(p.sets)
	if err != nil {
		return badInput(err)
	}
	for _, note := range sc.ImageNotes(p.sets) {
		fmt.Fprintln(stderr, "note: "+note)
	}
	exps, err := p.exp.withScenario(sc)
	if err != nil {
		return badInput(err)
	}
	var labels []string
	for _, v := range vs {
		labels = append(labels, v.Label)
	}
	if err := checkExpectations(describe(sc), exps, capabilities(vs), p.exp.baselineVariant, labels); err != nil {
		return err
	}
	p.scs, p.vars[sc], p.exps[sc] = append(p.scs, sc), vs, exps
	return nil
}

// checkOutputs refuses --junit / --baseline-variant without expectations
// and an --out or --junit that cannot be written.
func (p *runPlan) checkOutputs() error {
	if p.exp.junit != "" || p.exp.baselineVariant != "" {
		any := false
		for _, e := range p.exps {
			any = any || len(e) > 0
		}
		if !any {
			return usagef("--junit and --baseline-variant need an expectation (--expect, or expect: in the scenario)")
		}
	}
	if err := checkWritableDir("--out", p.out, p.out); err != nil {
		return err
	}
	var names []string
	for _, sc := range p.scs {
		names = append(names, sc.Name())
	}
	for _, path := range junitPaths(p.exp.junit, names) {
		if err := checkWritableFile("--junit", path); err != nil {
			return err
		}
	}
	return nil
}

// generatedRun is a generated scenario's run (check's, check
// --manifest's): the scenario, its result directory and report (nil when
// none was written), and the path the caller's verdict JUnit goes to.
type generatedRun struct {
	sc    *scenarios.Scenario
	dir   string
	res   *report.Result
	junit string
}

// runGenerated adds a generated scenario to p with sets and out, takes
// --junit for the caller's verdict (--expect's verdicts go beside it) and
// executes it. Bad input exits exitUsage before anything runs.
func (p *runPlan) runGenerated(ctx context.Context, sc *scenarios.Scenario, sets []string, out string, stdout, stderr io.Writer) (generatedRun, int, error) {
	var g generatedRun
	p.sets, p.out, g.sc = sets, out, sc
	if err := p.addScenario(sc, stderr); err != nil {
		return g, exitUsage, err
	}
	g.junit = p.exp.junit
	p.exp.junit = expectationsJUnit(g.junit, len(p.exps[sc]) > 0)
	if err := p.checkOutputs(); err != nil {
		return g, exitUsage, err
	}
	p.onReport = func(d string, r *report.Result, _ io.Writer) { g.dir, g.res = d, r }
	code, err := p.execute(ctx, stdout, stderr)
	return g, code, err
}
