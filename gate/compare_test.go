package gate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/report"
)

// row finds the row of variant/metric.
func row(rs []Regression, variant, metric string) (Regression, bool) {
	for _, r := range rs {
		if r.Variant == variant && r.Metric == metric {
			return r, true
		}
	}
	return Regression{}, false
}

func TestCompare(t *testing.T) {
	base := met(0, 0, 1000, 300)
	killed := met(0, 0, 1000, 300)
	killed.ExitCode, killed.Killed = ip(137), true
	tests := []struct {
		name      string
		old, new  report.Metrics
		tol       Tolerance
		metric    string
		verdict   string
		change    string
		regressed bool
	}{
		// one more loss is a regression at Abs 0
		{name: "loss up", old: base, new: met(1, 1, 1000, 300), metric: "dropped_inflight", verdict: VerdictRegressed, change: "+1", regressed: true},
		{name: "loss within Abs", old: base, new: met(1, 1, 1000, 300), tol: Tolerance{Abs: 1}, metric: "dropped_inflight", verdict: VerdictOK, change: "+1"},
		{name: "loss down", old: met(2, 2, 1000, 300), new: base, metric: "failed", verdict: VerdictBetter, change: "-2"},
		{name: "same", old: base, new: base, metric: "failed", verdict: VerdictOK, change: "0"},
		// by_class failure keys are compared, present on one side only
		{name: "by_class", old: base, new: met(3, 0, 1000, 300), metric: "by_class.http_502", verdict: VerdictRegressed, change: "+3", regressed: true},
		// latencies by ratio (default 1.2)
		{name: "p99 x1.20 ok", old: base, new: met(0, 0, 1000, 360), metric: "p99_ms", verdict: VerdictOK, change: "x1.20"},
		{name: "p99 x1.30", old: base, new: met(0, 0, 1000, 390), metric: "p99_ms", verdict: VerdictRegressed, change: "x1.30", regressed: true},
		{name: "p99 x1.30 under MinMs", old: base, new: met(0, 0, 1000, 390), tol: Tolerance{MinMs: 100}, metric: "p99_ms", verdict: VerdictOK, change: "x1.30"},
		{name: "custom ratio", old: base, new: met(0, 0, 1000, 390), tol: Tolerance{Ratio: 1.5}, metric: "p99_ms", verdict: VerdictOK, change: "x1.30"},
		{name: "exit faster", old: base, new: met(0, 0, 500, 300), metric: "exit_after_ms", verdict: VerdictBetter, change: "x0.50"},
		// NEVER in new only
		{name: "NEVER new", old: base, new: met(0, 0, -1, 300), metric: "exit_after_ms", verdict: VerdictRegressed, change: "NEVER 1/1", regressed: true},
		{name: "NEVER both", old: met(0, 0, -1, 300), new: met(0, 0, -1, 300), metric: "exit_after_ms", verdict: VerdictNA},
		{name: "NEVER old only", old: met(0, 0, -1, 300), new: base, metric: "exit_after_ms", verdict: VerdictIncomparable},
		// exit_code differing is a regression either way: re-baseline to accept it
		{name: "code from NEVER", old: met(0, 0, -1, 300), new: base, metric: "exit_code", verdict: VerdictRegressed, change: "changed", regressed: true},
		// exit codes
		{name: "code changed", old: base, new: killed, metric: "exit_code", verdict: VerdictRegressed, change: "changed", regressed: true},
		{name: "code to NEVER", old: base, new: met(0, 0, -1, 300), metric: "exit_code", verdict: VerdictRegressed, change: "changed", regressed: true},
		{name: "code same", old: base, new: base, metric: "exit_code", verdict: VerdictOK, change: "same"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldRes := result(variant("mode=full", valid(tt.old)))
			newRes := result(variant("mode=full", valid(tt.new)))
			rs := Compare(newRes, oldRes, tt.tol)
			r, ok := row(rs, "mode=full", tt.metric)
			if !ok {
				t.Fatalf("no row for %s in %+v", tt.metric, rs)
			}
			if r.Verdict != tt.verdict || r.Change != tt.change || r.Regressed != tt.regressed {
				t.Errorf("got %q %q %v, want %q %q %v", r.Verdict, r.Change, r.Regressed, tt.verdict, tt.change, tt.regressed)
			}
			if tt.regressed && !Regressed(rs) {
				t.Errorf("Regressed = false")
			}
		})
	}
}

func TestCompareVariants(t *testing.T) {
	m := met(0, 0, 1000, 300)
	oldRes := result(variant("a", valid(m)), variant("b", valid(m)), variant("c", valid(m)))
	newRes := result(variant("a", invalid("target never ready")), variant("d", valid(m)), variant("c", valid(m)))
	rs := Compare(newRes, oldRes, DefaultTolerance())
	want := []struct {
		variant, verdict string
		regressed        bool
	}{
		{"a", VerdictNoValidRunNew, false},
		{"d", VerdictMissingInOld, false},
		{"b", VerdictMissingInNew, true},
	}
	for _, w := range want {
		r, ok := row(rs, w.variant, "")
		if !ok || r.Verdict != w.verdict || r.Regressed != w.regressed {
			t.Errorf("%s: %+v, want %s %v", w.variant, r, w.verdict, w.regressed)
		}
	}
	if _, ok := row(rs, "c", "p99_ms"); !ok {
		t.Errorf("c not compared")
	}
	for _, tt := range []struct {
		invalid int
		rs      []Regression
		want    int
	}{
		{0, nil, ExitPass},
		{0, rs, ExitFail},
		{InvalidRuns(newRes), rs, ExitHarness},
		{1, nil, ExitHarness},
	} {
		if got := CompareExitCode(tt.invalid, tt.rs); got != tt.want {
			t.Errorf("CompareExitCode(%d, %d rows) = %d, want %d", tt.invalid, len(tt.rs), got, tt.want)
		}
	}
	if InvalidRuns(newRes) != 1 {
		t.Errorf("InvalidRuns = %d", InvalidRuns(newRes))
	}
}

func TestWriteComparison(t *testing.T) {
	oldRes := threeVariants()
	newRes := threeVariants()
	newRes.Variants[0].Runs[1] = valid(met(2, 1, 2500, 450))
	newRes.Variants[0].Runs[2] = valid(met(3, 2, -1, 500))
	newRes.Variants = newRes.Variants[:2]
	rs := Compare(newRes, oldRes, DefaultTolerance())
	var b bytes.Buffer
	if err := WriteComparison(&b, NewInfo(newRes, oldRes, DefaultTolerance()), rs); err != nil {
		t.Fatal(err)
	}
	golden(t, "comparison.md", b.Bytes())
	n := 0
	for _, r := range rs {
		if r.Regressed {
			n++
		}
	}
	if want := fmt.Sprintf("**%d regressions.**", n); !bytes.Contains(b.Bytes(), []byte(want)) || n < 3 {
		t.Errorf("headline lacks %q", want)
	}
}

// A new result without a valid run (a harness killed before any run
// finished) compares no metric: the headline says so instead of "No
// regression".
func TestWriteComparisonNothingCompared(t *testing.T) {
	oldRes := result(variant("mode=full", valid(met(0, 0, 1000, 300))))
	newRes := result(variant("mode=full", report.Run{Reason: "missing events.json: the run never finished"}))
	rs := Compare(newRes, oldRes, DefaultTolerance())
	var b bytes.Buffer
	if err := WriteComparison(&b, NewInfo(newRes, oldRes, DefaultTolerance()), rs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**No verdict**: no variant has a valid run on both sides") || strings.Contains(b.String(), "No regression") {
		t.Errorf("headline:\n%s", b.String())
	}
}
