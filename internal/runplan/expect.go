package runplan

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Expectations are how a result is judged: the expectations given on the
// command line, the variant reference.NAME reads, and the JUnit file.
type Expectations struct {
	// Parsed are the command line's expectations (--expect), checked.
	Parsed []*gate.Expectation
	// ReferenceVariant is --reference-variant (--baseline-variant, its
	// deprecated name): the label of the variant that reference.NAME in
	// an expectation reads (any variant, not only the baseline variant).
	ReferenceVariant string
	// JUnit is the JUnit XML file the verdicts go to ("": none).
	JUnit string
}

// ParseExpectations checks every expectation before anything runs; a
// value over the --set size limit, a syntax error or an unknown metric is
// a usage error showing where. Each deprecated spelling (baseline.NAME)
// is one line on stderr naming where and the spelling to use.
func ParseExpectations(exprs []string, stderr io.Writer) ([]*gate.Expectation, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	if err := scenarios.CheckArgs("--expect", exprs); err != nil {
		return nil, BadInput(err)
	}
	exps, err := gate.ParseAll(exprs)
	if err != nil {
		return nil, &UsageError{Msg: CaretMsg(err), Err: err}
	}
	for _, e := range exps {
		for _, d := range e.Deprecations() {
			fmt.Fprintln(stderr, d)
		}
	}
	return exps, nil
}

// WithScenario returns the command-line expectations plus those the
// scenario file declares; an expectation in the file that does not parse
// is an error naming the file, the line and the field (expect[i]). Each
// deprecated spelling in the file's expectations is one line on stderr
// naming the file, the line, the field and the spelling to use.
func (e *Expectations) WithScenario(sc *scenarios.Scenario, stderr io.Writer) ([]*gate.Expectation, error) {
	if len(sc.Spec.Expect) == 0 {
		return e.Parsed, nil
	}
	own := append([]*gate.Expectation(nil), e.Parsed...)
	var msgs []string
	for i, src := range sc.Spec.Expect {
		x, err := gate.Parse(src)
		if err == nil {
			err = x.Check()
		}
		if err != nil {
			field := fmt.Sprintf("expect[%d]", i)
			ve := &scenarios.ValidationError{File: sc.File, Line: sc.Line(field), Field: field, Msg: err.Error()}
			msg := ve.Error()
			var ge *gate.Error
			if errors.As(err, &ge) {
				msg += "\n" + ge.Caret()
			}
			msgs = append(msgs, msg)
			continue
		}
		for _, d := range x.Deprecations() {
			field := fmt.Sprintf("expect[%d]", i)
			fmt.Fprintln(stderr, &scenarios.ValidationError{File: sc.File, Line: sc.Line(field), Field: field, Msg: d.String()})
		}
		own = append(own, x)
	}
	if len(msgs) > 0 {
		return nil, errors.New(strings.Join(msgs, "\n"))
	}
	return own, nil
}

// Judge evaluates the expectations on res, prints the verdicts, writes the
// JUnit file and returns the exit code (0 pass, 1 an expectation failed, 2
// the harness could not measure). harnessFailures counts invalid or
// incomplete runs and harness errors already known to the caller.
func (e *Expectations) Judge(w io.Writer, res *report.Result, exps []*gate.Expectation, harnessFailures int, scenarios int) (int, error) {
	if len(exps) == 0 {
		return 0, nil
	}
	rep, err := gate.Evaluate(res, exps, e.ReferenceVariant)
	if err != nil {
		return gate.ExitHarness, err
	}
	printVerdicts(w, rep)
	if e.JUnit != "" {
		path := e.JUnit
		if scenarios > 1 {
			ext := filepath.Ext(path)
			path = strings.TrimSuffix(path, ext) + "-" + res.Scenario + ext
		}
		if err := writeJUnit(path, res.Scenario, rep); err != nil {
			return gate.ExitHarness, err
		}
		fmt.Fprintf(w, "wrote %s\n", path)
	}
	return gate.ExitCode(harnessFailures, rep), nil
}

// writeJUnit writes the verdicts of rep as JUnit XML at path, making its
// directory.
func writeJUnit(path, scenario string, rep gate.Report) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	werr := gate.WriteJUnit(f, scenario, rep)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("junit %s: %w", path, werr)
	}
	return nil
}

// printVerdicts writes one line per variant x expectation, and the per-run
// measurements under every failing one.
func printVerdicts(w io.Writer, rep gate.Report) {
	fmt.Fprintf(w, "\nexpectations (%s):\n", rep.Scenario)
	for _, v := range rep.Verdicts {
		verdict := "PASS"
		if !v.Pass {
			verdict = "FAIL"
		}
		line := fmt.Sprintf("  %s  %-28s %s  (%d of %d valid runs held, need %d)", verdict, v.Variant, v.Expectation.Source, v.Passed, v.Valid, v.Required)
		if !v.Pass && v.Reason != "" {
			line += ": " + v.Reason
		}
		fmt.Fprintln(w, line)
		if !v.Pass {
			for _, m := range v.Messages() {
				fmt.Fprintln(w, "        "+m)
			}
		}
	}
}
