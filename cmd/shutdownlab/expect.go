package main

import (
	"io"

	"github.com/shutdownlab/shutdownlab/check"
	"github.com/shutdownlab/shutdownlab/internal/runplan"
)

// expectFlags are the flags shared by run, check and report for judging
// a result: --expect, --reference-variant (--baseline-variant, its
// deprecated name) and --junit.
type expectFlags struct {
	exprs setFlags
	runplan.Expectations
}

// register adds the flags to c; c.checkAliases then warns of
// --baseline-variant.
func (e *expectFlags) register(c *command) {
	c.fs.Var(&e.exprs, "expect", "an expectation every variant must meet, e.g. 'dropped_inflight == 0' or 'exit_code == 0 @ 2/3' (repeatable; see docs/expectations.md)")
	c.fs.StringVar(&e.ReferenceVariant, "reference-variant", "", "the variant label that reference.NAME in an expectation refers to (any variant of the scenario)")
	c.alias("baseline-variant", "reference-variant")
	c.fs.StringVar(&e.JUnit, "junit", "", "write JUnit XML verdicts to this file (one file per scenario when several run: FILE-<scenario>.xml)")
}

// parse checks every expectation before anything runs (a usage error
// shows where); each deprecated spelling in one is a line on stderr.
func (e *expectFlags) parse(stderr io.Writer) (err error) {
	e.Parsed, err = runplan.ParseExpectations(e.exprs, stderr)
	return err
}

// check is the flags as check takes them (it parses them itself).
func (e *expectFlags) check() check.Expectations {
	return check.Expectations{Exprs: e.exprs, ReferenceVariant: e.ReferenceVariant, JUnit: e.JUnit}
}
