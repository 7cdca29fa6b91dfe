package gate

import (
	"errors"
	"fmt"

	"github.com/shutdownlab/shutdownlab/report"
)

// RunResult is one expectation judged on one run of a variant.
type RunResult struct {
	// Name labels the run in messages ("run 2").
	Name string
	// Valid is false for a run that does not count; Reason says why.
	Valid  bool
	Reason string
	// Outcome is the evaluation (valid runs only); Err an evaluation
	// error, which makes the run not pass.
	Outcome Outcome
	Err     error
}

// Verdict is one expectation judged on one variant: how many valid runs
// passed against how many are required.
type Verdict struct {
	// Variant is the variant's label; Expectation what was judged.
	Variant     string
	Expectation *Expectation
	// Runs are every run of the variant in run order, invalid ones
	// included (with Valid false and no Outcome).
	Runs []RunResult
	// Valid and Invalid count the runs; Passed counts the valid runs where
	// the expectation held; Required is the bar: Expectation.K, or every
	// valid run (at least 1) when K is 0.
	Valid, Invalid, Passed, Required int
	// Pass is true when Valid >= Required, Passed >= Required and no
	// evaluation failed. Invalid runs never count as passes.
	Pass bool
	// Reason is one line: "held in 3 of 3 valid runs",
	// "held in 1 of 3 valid runs, need 3", "only 1 valid run, need 2".
	Reason string
	// Notes hold remarks on the verdict as a whole (a k/n suffix written
	// for a different number of runs).
	Notes []string
	// Err joins the evaluation errors, if any (a usage problem, such as a
	// missing reference variant, never a regression).
	Err error
}

// Messages returns one line per run and then the notes:
// "run 1: failed = 3 (want failed == 0)", "run 2: failed = 0 (pass)",
// "run 3: invalid: target never ready (not counted)". Null notes follow the
// want: "(want exit_after_ms < 3000; exit_after_ms is null (NEVER))".
func (v Verdict) Messages() []string {
	var out []string
	for _, r := range v.Runs {
		switch {
		case !r.Valid:
			out = append(out, fmt.Sprintf("%s: invalid: %s (not counted)", r.Name, r.Reason))
		case r.Err != nil:
			out = append(out, fmt.Sprintf("%s: error: %v", r.Name, r.Err))
		case r.Outcome.Pass:
			out = append(out, fmt.Sprintf("%s: %s (pass)", r.Name, r.Outcome.Measured()))
		default:
			want := "want " + v.Expectation.Expr
			for _, n := range r.Outcome.Notes {
				want += "; " + n
			}
			out = append(out, fmt.Sprintf("%s: %s (%s)", r.Name, r.Outcome.Measured(), want))
		}
	}
	return append(out, v.Notes...)
}

// namedRun is one run handed to judge.
type namedRun struct {
	name   string
	m      *report.Metrics
	valid  bool
	reason string
}

// Judge judges exp on a variant's valid runs (named "run 1", "run 2", ...
// in the order given); invalid is the number of the variant's runs that do
// not count. ref supplies reference.NAME values (nil when unused).
func Judge(exp *Expectation, runs []*report.Metrics, invalid int, ref Reference) Verdict {
	named := make([]namedRun, len(runs))
	for i, m := range runs {
		named[i] = namedRun{name: fmt.Sprintf("run %d", i+1), m: m, valid: true}
	}
	v := judge(exp, named, ref)
	v.Invalid += invalid
	return finish(v)
}

// judge evaluates every valid run; finish sets the verdict.
func judge(exp *Expectation, runs []namedRun, ref Reference) Verdict {
	v := Verdict{Expectation: exp}
	var errs []error
	for _, r := range runs {
		rr := RunResult{Name: r.name, Valid: r.valid, Reason: r.reason}
		if !r.valid {
			v.Invalid++
			v.Runs = append(v.Runs, rr)
			continue
		}
		v.Valid++
		rr.Outcome, rr.Err = exp.Eval(r.m, ref)
		if rr.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.name, rr.Err))
		} else if rr.Outcome.Pass {
			v.Passed++
		}
		v.Runs = append(v.Runs, rr)
	}
	v.Err = errors.Join(errs...)
	return v
}

func finish(v Verdict) Verdict {
	exp := v.Expectation
	v.Required = exp.K
	if v.Required == 0 {
		v.Required = max(v.Valid, 1)
	}
	if total := v.Valid + v.Invalid; exp.N > 0 && total != exp.N {
		v.Notes = append(v.Notes, fmt.Sprintf("note: %q was written for %d runs, the variant has %d", exp.Source, exp.N, total))
	}
	switch {
	case v.Err != nil:
		v.Reason = fmt.Sprintf("could not evaluate: %v", v.Err)
	case v.Valid < v.Required:
		v.Reason = fmt.Sprintf("only %d valid %s, need %d", v.Valid, plural(v.Valid, "run"), v.Required)
	case v.Passed < v.Required:
		v.Reason = fmt.Sprintf("held in %d of %d valid %s, need %d", v.Passed, v.Valid, plural(v.Valid, "run"), v.Required)
	default:
		v.Pass = true
		v.Reason = fmt.Sprintf("held in %d of %d valid %s", v.Passed, v.Valid, plural(v.Valid, "run"))
	}
	return v
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Report is every expectation judged on every variant of one result.
type Report struct {
	// Scenario is the result's scenario name.
	Scenario string
	// Verdicts are ordered by variant (scenario order), then expectation
	// (flag order).
	Verdicts []Verdict
	// Invalid counts the result's runs that do not count, over all
	// variants.
	Invalid int
}

// Evaluate judges each expectation on each variant of res. reference.X
// is the median of X over the valid runs of the variant labelled
// referenceLabel (see MedianReference); it is an error when an
// expectation uses reference.X and that variant is missing. The reference
// variant is judged like the others.
func Evaluate(res *report.Result, exps []*Expectation, referenceLabel string) (Report, error) {
	rep := Report{Scenario: res.Scenario}
	var ref Reference
	for _, e := range exps {
		if !e.UsesReference() {
			continue
		}
		if referenceLabel == "" {
			return rep, fmt.Errorf("expect %q: %w", e.Source, ErrNoReference)
		}
		i := variantIndex(res, referenceLabel)
		if i < 0 {
			return rep, fmt.Errorf("expect %q: reference variant %q not in the result (variants: %s)", e.Source, referenceLabel, variantLabels(res))
		}
		ref = MedianReference(res.Variants[i].ValidMetrics())
		break
	}
	for i := range res.Variants {
		vr := &res.Variants[i]
		runs := make([]namedRun, len(vr.Runs))
		for j := range vr.Runs {
			r := &vr.Runs[j]
			n := r.Meta.Run
			if n <= 0 {
				n = j + 1
			}
			runs[j] = namedRun{name: fmt.Sprintf("run %d", n), m: &r.Metrics, valid: r.Valid, reason: r.Reason}
			if !r.Valid {
				rep.Invalid++
			}
		}
		for _, e := range exps {
			v := judge(e, runs, ref)
			v.Variant = vr.Label
			rep.Verdicts = append(rep.Verdicts, finish(v))
		}
	}
	return rep, nil
}

func variantIndex(res *report.Result, label string) int {
	for i := range res.Variants {
		if res.Variants[i].Label == label {
			return i
		}
	}
	return -1
}

func variantLabels(res *report.Result) string {
	s := ""
	for i, v := range res.Variants {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", v.Label)
	}
	return s
}

// Exit codes of run --expect and gate.
const (
	// ExitPass: every expectation held (or none was given) and every run
	// was valid.
	ExitPass = 0
	// ExitFail: an expectation failed (or Compare found a regression) on
	// valid runs only.
	ExitFail = 1
	// ExitHarness: a run was invalid, the harness failed or an expectation
	// could not be evaluated. Never a pass, never reported as a
	// regression.
	ExitHarness = 2
)

// ExitCode maps a report to the process exit code: ExitHarness when
// harnessFailures > 0 (runs or steps that failed outright, outside rep), any
// run of rep is invalid, or any verdict could not be evaluated; else
// ExitFail when any verdict failed; else ExitPass.
func ExitCode(harnessFailures int, rep Report) int {
	if harnessFailures > 0 || rep.Invalid > 0 {
		return ExitHarness
	}
	code := ExitPass
	for _, v := range rep.Verdicts {
		if v.Err != nil || v.Invalid > 0 {
			return ExitHarness
		}
		if !v.Pass {
			code = ExitFail
		}
	}
	return code
}
