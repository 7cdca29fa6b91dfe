package runplan

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Generated is a generated scenario's run (check's, check
// --manifest's): the scenario, its result directory and report (nil when
// none was written), and the path the caller's verdict JUnit goes to.
type Generated struct {
	Scenario *scenarios.Scenario
	Dir      string
	Result   *report.Result
	JUnit    string
}

// RunGenerated adds a generated scenario to p (with p's Sets and Out),
// takes --junit for the caller's verdict (--expect's verdicts go beside
// it, ExpectationsJUnit) and executes it. Bad input is refused before
// anything runs.
func (p *Plan) RunGenerated(ctx context.Context, sc *scenarios.Scenario, stdout, stderr io.Writer) (Generated, int, error) {
	g := Generated{Scenario: sc}
	if err := p.Add(sc, stderr); err != nil {
		return g, ExitUsage, err
	}
	g.JUnit = p.Expect.JUnit
	p.Expect.JUnit = ExpectationsJUnit(g.JUnit, len(p.exps[sc]) > 0)
	if err := p.CheckOutputs(); err != nil {
		return g, ExitUsage, err
	}
	p.OnReport = func(d string, r *report.Result, _ io.Writer) { g.Dir, g.Result = d, r }
	code, err := p.Execute(ctx, stdout, stderr)
	return g, code, err
}

// ExpectationsJUnit is where check writes the JUnit of --expect
// expectations: beside the verdict's file, with "-expectations" before
// its extension; "" when there is no file or no expectation.
func ExpectationsJUnit(path string, any bool) string {
	if path == "" || !any {
		return ""
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-expectations" + ext
}
