package gate

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shutdownlab/shutdownlab/report"
)

// fuzzSeeds are expectations as users write them (docs/expectations.md),
// plus near misses that exercise every error path of the lexer and parser.
var fuzzSeeds = []string{
	"dropped_inflight == 0",
	"exit_code != null && exit_code == 0",
	"exit_after_ms < 3000 @ 2/3",
	"p99_ms < 1.3 * reference.p99_ms",
	"p99_ms < 1.3 * baseline.p99_ms",
	"by_class.http_502 + by_class.reset <= 1 || failed == 0",
	"(failed == 0 || ok > 1) && killed == true",
	"-ok < --1",
	"requests - ok - failed + 2 * 3 >= 0",
	"p99_ms / 0 == null",
	"  failed==0@3/3  ",
	"p99_ms < ",
	"failed = 0",
	"0 < failed < 3",
	"failed",
	"exit_after_ms < 3s",
	"failed == 0 @ 3/2",
	"failed == 0 @ 0",
	"failed == 0 @ 1.5",
	"((failed == 0)",
	"failed == 0)",
	"null < 1",
	"reference. == 0",
	"baseline. == 0",
	"dropped_inflght == 0",
	"1. == 1",
	"é == 1",
	"",
	// Nesting at and past MaxDepth: a megabyte of "(" used to overflow
	// the stack.
	strings.Repeat("(", MaxDepth) + "failed == 0" + strings.Repeat(")", MaxDepth),
	strings.Repeat("(", MaxDepth+1) + "failed == 0" + strings.Repeat(")", MaxDepth+1),
	strings.Repeat("-(", MaxDepth/2) + "1" + strings.Repeat(")", MaxDepth/2) + " < 2",
	strings.Repeat("-", MaxDepth+1) + "1 < 2",
	strings.Repeat("(", 10000),
}

// expectFlag finds --expect 'SRC' in the project's docs and Makefile.
var expectFlag = regexp.MustCompile(`--expect '([^']+)'`)

// FuzzParse checks that Parse never panics, that every error is an *Error
// pointing inside the source, and that whatever parses and passes Check
// also evaluates without error on a run with every metric present.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, file := range []string{"../Makefile", "../README.md", "../docs/expectations.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			continue // the seeds above suffice
		}
		for _, m := range expectFlag.FindAllStringSubmatch(string(b), -1) {
			f.Add(m[1])
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			checkPosError(t, src, err)
			return
		}
		if e.Source != src {
			t.Fatalf("Source = %q, want %q", e.Source, src)
		}
		if e.K < 0 || e.N < 0 || (e.N > 0 && (e.K < 1 || e.K > e.N)) {
			t.Fatalf("Parse(%q): bad run count K=%d N=%d", src, e.K, e.N)
		}
		// Expr is the expression without its "@ k/n": it parses alone.
		if _, err := Parse(e.Expr); err != nil {
			t.Fatalf("Parse(%q) ok, but its Expr %q does not parse: %v", src, e.Expr, err)
		}
		_ = e.Names()
		if err := e.Check(); err != nil {
			checkPosError(t, src, err)
			return
		}
		m := fuzzMetrics()
		out, err := e.Eval(&m, MetricsReference(&m))
		if err != nil {
			t.Fatalf("Eval(%q) after Check passed: %v", src, err)
		}
		_ = out.Measured()
	})
}

// checkPosError requires err to be an *Error for src with a column inside
// src (or just past its end) and a message.
func checkPosError(t *testing.T, src string, err error) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("%q: error %T (%v) is not a *gate.Error", src, err, err)
	}
	if pe.Source != src {
		t.Fatalf("%q: error Source = %q", src, pe.Source)
	}
	if n := utf8.RuneCountInString(src); pe.Col < 1 || pe.Col > n+1 {
		t.Fatalf("%q: error column %d outside 1..%d: %v", src, pe.Col, n+1, err)
	}
	if pe.Msg == "" {
		t.Fatalf("%q: error without a message", src)
	}
	if !strings.Contains(pe.Error(), "col "+strconv.Itoa(pe.Col)+":") {
		t.Fatalf("%q: Error() %q does not name column %d", src, pe.Error(), pe.Col)
	}
	_ = pe.Caret()
}

// fuzzMetrics is a run in which every nullable metric has a value.
func fuzzMetrics() report.Metrics {
	m := met(2, 1, 350, 310)
	m.ByClass["reset"] = 1
	return m
}
