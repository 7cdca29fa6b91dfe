package gate

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/report"
)

func TestJudge(t *testing.T) {
	ok, bad := met(0, 0, 100, 10), met(3, 1, 100, 10)
	tests := []struct {
		name     string
		src      string
		runs     []report.Metrics
		invalid  int
		pass     bool
		passed   int
		required int
		reason   string
	}{
		// 3 runs, 2 pass: the default needs all of them
		{"default fails", "failed == 0", []report.Metrics{ok, bad, ok}, 0, false, 2, 3, "held in 2 of 3 valid runs, need 3"},
		// ... @ 2/3 and @ 2 accept two
		{"k of n passes", "failed == 0 @ 2/3", []report.Metrics{ok, bad, ok}, 0, true, 2, 2, "held in 2 of 3 valid runs"},
		{"k passes", "failed == 0 @ 2", []report.Metrics{ok, bad, ok}, 0, true, 2, 2, "held in 2 of 3 valid runs"},
		// ... but not one
		{"k of n fails", "failed == 0 @ 2/3", []report.Metrics{ok, bad, bad}, 0, false, 1, 2, "held in 1 of 3 valid runs, need 2"},
		// invalid runs never count as passes
		{"invalid never passes", "failed == 0 @ 2/3", []report.Metrics{ok}, 2, false, 1, 2, "only 1 valid run, need 2"},
		// the default bar is every valid run: invalid runs are for the exit code
		{"default over valid runs", "failed == 0", []report.Metrics{ok, ok}, 1, true, 2, 2, "held in 2 of 2 valid runs"},
		// no valid run at all
		{"no valid run", "failed == 0", nil, 3, false, 0, 1, "only 0 valid runs, need 1"},
		{"nothing", "failed == 0", nil, 0, false, 0, 1, "only 0 valid runs, need 1"},
		// evaluation errors are not passes
		{"missing reference", "p99_ms < reference.p99_ms", []report.Metrics{ok}, 0, false, 0, 1, "could not evaluate: run 1: expectation uses reference.NAME"},
		{"missing reference, old spelling", "p99_ms < baseline.p99_ms", []report.Metrics{ok}, 0, false, 0, 1, "could not evaluate: run 1: expectation uses reference.NAME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ms []*report.Metrics
			for i := range tt.runs {
				ms = append(ms, &tt.runs[i])
			}
			v := Judge(mustParse(tt.src), ms, tt.invalid, nil)
			if v.Pass != tt.pass || v.Passed != tt.passed || v.Required != tt.required || !strings.HasPrefix(v.Reason, tt.reason) {
				t.Errorf("got pass %v %d/%d %q, want %v %d/%d %q", v.Pass, v.Passed, v.Required, v.Reason, tt.pass, tt.passed, tt.required, tt.reason)
			}
			if v.Valid != len(tt.runs) || v.Invalid != tt.invalid {
				t.Errorf("valid/invalid = %d/%d", v.Valid, v.Invalid)
			}
		})
	}
}

func TestJudgeMessages(t *testing.T) {
	a, b := met(3, 0, 100, 10), met(0, 0, -1, 10)
	v := Judge(mustParse("failed == 0 && exit_after_ms < 3000 @ 1/3"), []*report.Metrics{&a, &b}, 0, nil)
	want := []string{
		"run 1: failed = 3, exit_after_ms = 100 (want failed == 0 && exit_after_ms < 3000)",
		"run 2: failed = 0, exit_after_ms = NEVER (want failed == 0 && exit_after_ms < 3000; exit_after_ms is null (NEVER))",
		`note: "failed == 0 && exit_after_ms < 3000 @ 1/3" was written for 3 runs, the variant has 2`,
	}
	if got := v.Messages(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// threeVariants: baseline clean; close loses requests in run 2; never has
// an invalid run and a replica that never exits.
func threeVariants() *report.Result {
	return result(
		variant("mode=full", valid(met(0, 0, 1000, 300)), valid(met(0, 0, 1100, 320)), valid(met(0, 0, 1200, 340))),
		variant("mode=close", valid(met(0, 0, 50, 300)), valid(met(4, 2, 60, 600)), valid(met(0, 0, 55, 310))),
		variant("mode=none", valid(met(0, 0, -1, 300)), invalid("target never ready"), valid(met(0, 0, -1, 300))),
	)
}

func TestEvaluate(t *testing.T) {
	exps := []*Expectation{mustParse("dropped_inflight == 0"), mustParse("p99_ms < 1.3 * reference.p99_ms @ 2/3")}
	rep, err := Evaluate(threeVariants(), exps, "mode=full")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		variant string
		pass    bool
		reason  string
	}{
		{"mode=full", true, "held in 3 of 3 valid runs"},
		{"mode=full", true, "held in 3 of 3 valid runs"}, // 340 < 1.3 × 320
		{"mode=close", false, "held in 2 of 3 valid runs, need 3"},
		{"mode=close", true, "held in 2 of 3 valid runs"}, // 600 ≥ 416
		{"mode=none", true, "held in 2 of 2 valid runs"},
		{"mode=none", true, "held in 2 of 2 valid runs"}, // 300 < 1.3 × 320; the invalid run is for the exit code
	}
	if len(rep.Verdicts) != len(want) || rep.Invalid != 1 || rep.Scenario != "direct-inflight" {
		t.Fatalf("%d verdicts, %d invalid", len(rep.Verdicts), rep.Invalid)
	}
	for i, w := range want {
		v := rep.Verdicts[i]
		if v.Variant != w.variant || v.Pass != w.pass || v.Reason != w.reason {
			t.Errorf("verdict %d = %s %v %q, want %s %v %q", i, v.Variant, v.Pass, v.Reason, w.variant, w.pass, w.reason)
		}
	}
	if got := rep.Verdicts[4].Messages()[1]; got != "run 2: invalid: target never ready (not counted)" {
		t.Errorf("invalid message = %q", got)
	}

	if _, err := Evaluate(threeVariants(), exps, ""); err == nil {
		t.Errorf("no reference label: no error")
	}
	if _, err := Evaluate(threeVariants(), exps, "mode=fast"); err == nil || !strings.Contains(err.Error(), `"mode=full", "mode=close", "mode=none"`) {
		t.Errorf("missing reference variant: err = %v", err)
	}
	if _, err := Evaluate(threeVariants(), exps[:1], ""); err != nil {
		t.Errorf("no reference needed: err = %v", err)
	}
}

func TestExitCode(t *testing.T) {
	pass := Verdict{Pass: true}
	fail := Verdict{}
	tests := []struct {
		name    string
		harness int
		rep     Report
		want    int
	}{
		{"nothing to judge", 0, Report{}, ExitPass},
		{"all pass", 0, Report{Verdicts: []Verdict{pass, pass}}, ExitPass},
		{"one fails", 0, Report{Verdicts: []Verdict{pass, fail}}, ExitFail},
		{"invalid run, expectations pass", 0, Report{Invalid: 1, Verdicts: []Verdict{pass}}, ExitHarness},
		{"invalid run, expectation fails", 0, Report{Invalid: 1, Verdicts: []Verdict{fail}}, ExitHarness},
		{"invalid run, no expectations", 0, Report{Invalid: 2}, ExitHarness},
		{"harness failure", 1, Report{Verdicts: []Verdict{pass}}, ExitHarness},
		{"verdict with invalid runs", 0, Report{Verdicts: []Verdict{{Pass: true, Invalid: 1}}}, ExitHarness},
		{"evaluation error", 0, Report{Verdicts: []Verdict{fail, {Err: ErrNoReference}}}, ExitHarness},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.harness, tt.rep); got != tt.want {
			t.Errorf("%s: ExitCode = %d, want %d", tt.name, got, tt.want)
		}
	}
}
