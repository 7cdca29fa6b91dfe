package main

import (
	"flag"

	"github.com/shutdownlab/shutdownlab/check"
	"github.com/shutdownlab/shutdownlab/internal/runplan"
)

// expectFlags are the flags shared by run, check and report for judging
// a result: --expect, --baseline-variant and --junit.
type expectFlags struct {
	exprs setFlags
	runplan.Expectations
}

func (e *expectFlags) register(fs *flag.FlagSet) {
	fs.Var(&e.exprs, "expect", "an expectation every variant must meet, e.g. 'dropped_inflight == 0' or 'exit_code == 0 @ 2/3' (repeatable; see docs/expectations.md)")
	fs.StringVar(&e.BaselineVariant, "baseline-variant", "", "the variant label that baseline.NAME in an expectation refers to")
	fs.StringVar(&e.JUnit, "junit", "", "write JUnit XML verdicts to this file (one file per scenario when several run: FILE-<scenario>.xml)")
}

// parse checks every expectation before anything runs (a usage error
// shows where).
func (e *expectFlags) parse() (err error) {
	e.Parsed, err = runplan.ParseExpectations(e.exprs)
	return err
}

// check is the flags as check takes them (it parses them itself).
func (e *expectFlags) check() check.Expectations {
	return check.Expectations{Exprs: e.exprs, BaselineVariant: e.BaselineVariant, JUnit: e.JUnit}
}
