package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// expectFlags are the flags shared by run and report for judging a result.
type expectFlags struct {
	exprs setFlags
	// baselineVariant is --baseline-variant: the label of the variant
	// that baseline.NAME in an expectation reads (any variant, not only
	// the steady-state one).
	baselineVariant string
	junit           string
	parsed          []*gate.Expectation
}

func (e *expectFlags) register(fs *flag.FlagSet) {
	fs.Var(&e.exprs, "expect", "an expectation every variant must meet, e.g. 'dropped_inflight == 0' or 'exit_code == 0 @ 2/3' (repeatable; see docs/expectations.md)")
	fs.StringVar(&e.baselineVariant, "baseline-variant", "", "the variant label that baseline.NAME in an expectation refers to")
	fs.StringVar(&e.junit, "junit", "", "write JUnit XML verdicts to this file (one file per scenario when several run: FILE-<scenario>.xml)")
}

// parse checks every expectation before anything runs; a value over the
// --set size limit, a syntax error or an unknown metric is a usage error
// showing where.
func (e *expectFlags) parse() error {
	if len(e.exprs) == 0 {
		return nil
	}
	if err := scenarios.CheckArgs("--expect", e.exprs); err != nil {
		return badInput(err)
	}
	exps, err := gate.ParseAll(e.exprs)
	if err != nil {
		return &usageError{msg: caretMsg(err), err: err}
	}
	e.parsed = exps
	return nil
}

// withScenario returns the command-line expectations plus those the
// scenario file declares; an expectation in the file that does not parse
// is an error naming the file, the line and the field (expect[i]).
func (e *expectFlags) withScenario(sc *scenarios.Scenario) ([]*gate.Expectation, error) {
	if len(sc.Spec.Expect) == 0 {
		return e.parsed, nil
	}
	own := append([]*gate.Expectation(nil), e.parsed...)
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
		own = append(own, x)
	}
	if len(msgs) > 0 {
		return nil, errors.New(strings.Join(msgs, "\n"))
	}
	return own, nil
}

// judge evaluates the expectations on res, prints the verdicts, writes the
// JUnit file and returns the exit code (0 pass, 1 an expectation failed, 2
// the harness could not measure). harnessFailures counts invalid or
// incomplete runs and harness errors already known to the caller.
func (e *expectFlags) judge(w io.Writer, res *report.Result, exps []*gate.Expectation, harnessFailures int, scenarios int) (int, error) {
	if len(exps) == 0 {
		return 0, nil
	}
	rep, err := gate.Evaluate(res, exps, e.baselineVariant)
	if err != nil {
		return exitInvalid, err
	}
	printVerdicts(w, rep)
	if e.junit != "" {
		path := e.junit
		if scenarios > 1 {
			ext := filepath.Ext(path)
			path = strings.TrimSuffix(path, ext) + "-" + res.Scenario + ext
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return exitInvalid, fmt.Errorf("junit: %w", err)
		}
		f, err := os.Create(path)
		if err != nil {
			return exitInvalid, fmt.Errorf("junit: %w", err)
		}
		werr := gate.WriteJUnit(f, res.Scenario, rep)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return exitInvalid, fmt.Errorf("junit %s: %w", path, werr)
		}
		fmt.Fprintf(w, "wrote %s\n", path)
	}
	return gate.ExitCode(harnessFailures, rep), nil
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
