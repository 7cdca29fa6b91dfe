package runplan

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/internal/kubeapi"
	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/report/document"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Plan is a checked run: every scenario loaded, expanded and paired with
// its expectations, ready to execute.
type Plan struct {
	// Scenarios are the plan's scenarios, in order; Variants each one's
	// expanded variants (with Sets).
	Scenarios []*scenarios.Scenario
	Variants  map[*scenarios.Scenario][]scenarios.Variant
	exps      map[*scenarios.Scenario][]*gate.Expectation
	// Expect are the expectations of the command line, and how they are
	// judged.
	Expect Expectations
	// Sets are the --set values every scenario is expanded with; Out the
	// root directory of the result directories.
	Sets []string
	Out  string
	// Kube selects the cluster of platform kubernetes; Registry is where
	// its images are pushed ("": none).
	Kube     kubeapi.Config
	Registry string
	// OnReport, when set, is called with each scenario's result directory
	// and report after its table (check reads its verdict there).
	OnReport func(dir string, res *report.Result, stdout io.Writer)
}

// New returns an empty plan.
func New() *Plan {
	return &Plan{Variants: map[*scenarios.Scenario][]scenarios.Variant{}, exps: map[*scenarios.Scenario][]*gate.Expectation{}}
}

// Expectations returns the expectations sc is judged by: the command
// line's and its own.
func (p *Plan) Expectations(sc *scenarios.Scenario) []*gate.Expectation { return p.exps[sc] }

// Execute runs every scenario of a checked plan (run's, or check's),
// writes the reports and judges the expectations; it returns the exit
// code.
func (p *Plan) Execute(ctx context.Context, stdout, stderr io.Writer) (int, error) {
	r, err := runner.New(ctx, runner.Options{Out: p.Out, Sets: p.Sets, Progress: runner.NewProgress(stderr),
		Kube: p.Kube, Registry: p.Registry})
	if err != nil {
		return gate.ExitHarness, err
	}
	defer r.Close()
	code := gate.ExitPass
	for _, sc := range p.Scenarios {
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
			return gate.ExitHarness, err
		}
		if oc.Invalid > 0 || oc.Incomplete > 0 {
			code = gate.ExitHarness
		}
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "interrupted: remaining scenarios skipped")
			return gate.ExitHarness, nil
		}
	}
	return code, nil
}

// reportScenario writes one scenario's report and judges its
// expectations, returning the exit code they give.
func (p *Plan) reportScenario(sc *scenarios.Scenario, oc runner.Outcome, failed bool, stdout, stderr io.Writer) int {
	res, err := document.Rebuild(oc.Dir)
	if err != nil {
		fmt.Fprintf(stderr, "shutdownlab: report %s: %v\n", oc.Dir, err)
		return gate.ExitHarness
	}
	NoteUnreadable(stderr, res)
	fmt.Fprintln(stdout)
	_ = report.WriteTerminalTable(stdout, res)
	fmt.Fprintf(stdout, "\n%s: %d runs (%d invalid, %d incomplete) -> %s/%s\n", sc.Name(), oc.Runs, oc.Invalid, oc.Incomplete, oc.Dir, resultdir.MarkdownFile)
	if p.OnReport != nil {
		p.OnReport(oc.Dir, res, stdout)
	}
	failures := oc.Invalid + oc.Incomplete
	if failed {
		failures++
	}
	code, err := p.Expect.Judge(stdout, res, p.exps[sc], failures, len(p.Scenarios))
	if err != nil {
		fmt.Fprintf(stderr, "shutdownlab: %v\n", err)
	}
	return code
}

// Load loads, expands and checks every scenario named (a catalog name or
// a path) and its expectations.
func (p *Plan) Load(names []string, stderr io.Writer) error {
	for _, n := range names {
		sc, err := scenarios.Find(n)
		if err != nil {
			return BadInput(err)
		}
		if err := p.Add(sc, stderr); err != nil {
			return err
		}
	}
	return nil
}

// Add expands a loaded scenario with the plan's Sets, checks its
// expectations and adds it to the plan. Each deprecated key the file or
// a --set uses is one line on stderr, naming where and the key to use.
func (p *Plan) Add(sc *scenarios.Scenario, stderr io.Writer) error {
	for _, d := range sc.Deprecations(p.Sets) {
		fmt.Fprintln(stderr, d)
	}
	vs, err := sc.Expand(p.Sets)
	if err != nil {
		return BadInput(err)
	}
	for _, note := range sc.ImageNotes(p.Sets) {
		fmt.Fprintln(stderr, "note: "+note)
	}
	exps, err := p.Expect.WithScenario(sc, stderr)
	if err != nil {
		return BadInput(err)
	}
	var labels []string
	for _, v := range vs {
		labels = append(labels, v.Label)
	}
	if err := CheckExpectations(describe(sc), exps, gate.CapabilitiesOfVariants(vs), p.Expect.ReferenceVariant, labels); err != nil {
		return err
	}
	p.Scenarios, p.Variants[sc], p.exps[sc] = append(p.Scenarios, sc), vs, exps
	return nil
}

// CheckOutputs refuses --junit / --reference-variant without expectations
// and an --out or --junit that cannot be written.
func (p *Plan) CheckOutputs() error {
	if p.Expect.JUnit != "" || p.Expect.ReferenceVariant != "" {
		any := false
		for _, e := range p.exps {
			any = any || len(e) > 0
		}
		if !any {
			return Usagef("--junit and --reference-variant need an expectation (--expect, or expect: in the scenario)")
		}
	}
	if err := CheckWritableDir("--out", p.Out, p.Out); err != nil {
		return err
	}
	var names []string
	for _, sc := range p.Scenarios {
		names = append(names, sc.Name())
	}
	for _, path := range junitPaths(p.Expect.JUnit, names) {
		if err := CheckWritableFile("--junit", path); err != nil {
			return err
		}
	}
	return nil
}

// CheckImages refuses a target.image of the plan's variants that is not
// present on the engine, before a result directory is made: shutdownlab
// never pulls. Images in checked were checked already.
func (p *Plan) CheckImages(ctx context.Context, checked []string) error {
	var all []scenarios.Variant
	for _, sc := range p.Scenarios {
		all = append(all, p.Variants[sc]...)
	}
	return checkImages(ctx, all, checked)
}
