// Package captest is what the tests of a capability package share: a run
// as a load driver sees it (View), its output stream once it ended
// (Output), an image cache (Images), and a scenario's validation errors
// (ErrLines). It is imported by tests only.
package captest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// View is a run as a load driver sees it: Spec its scenario, Seq its
// number in the session; the load goes to replica-0:8080 and the target
// has 20 s to be ready.
type View struct {
	Spec scenarios.Spec
	Seq  int
}

var _ runner.LoadView = View{}

// Scenario is the run's scenario.
func (v View) Scenario() *scenarios.Spec { return &v.Spec }

// AgentTarget is replica-0:8080.
func (View) AgentTarget() string { return "replica-0:8080" }

// ReadyTimeout is 20 s.
func (View) ReadyTimeout() time.Duration { return 20 * time.Second }

// RunSeq is Seq.
func (v View) RunSeq() int { return v.Seq }

// Output is a run's output stream as a driver reads it once it ended:
// the last line kept of each type (Lines), the agent's summary (Sum) and
// the tally an accounting rule reads.
type Output struct {
	Lines map[string]any
	Sum   *record.Summary
	Tally record.Tally
}

var _ runner.LoadOutput = (*Output)(nil)

// Last is Lines[typ] (nil: none).
func (o *Output) Last(typ string) any { return o.Lines[typ] }

// Summary is Sum.
func (o *Output) Summary() *record.Summary { return o.Sum }

// Account applies rule to the tally and joins its errors.
func (o *Output) Account(rule func(*record.Tally) []error) error {
	return errors.Join(rule(&o.Tally)...)
}

// Images is an image cache whose Go image is NAME@PKG, or Err.
type Images struct{ Err error }

// Go returns name@pkg, or the cache's error.
func (c Images) Go(_ context.Context, name, pkg string) (string, error) {
	return name + "@" + pkg, c.Err
}

// ErrLines parses src as t.yaml and returns its errors, one a line (nil:
// it is valid).
func ErrLines(t *testing.T, src string) []string {
	t.Helper()
	_, err := scenarios.Parse("t.yaml", []byte(src))
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}
