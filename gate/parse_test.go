package gate

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// show prints a tree with explicit parentheses, to test precedence.
func show(n node) string {
	switch n := n.(type) {
	case *numLit:
		return strconv.FormatFloat(n.v, 'f', -1, 64)
	case *nullLit:
		return "null"
	case *ref:
		return n.text
	case *neg:
		return "(-" + show(n.x) + ")"
	case *arith:
		return "(" + show(n.x) + " " + n.op + " " + show(n.y) + ")"
	case *cmp:
		return "(" + show(n.x) + " " + n.op + " " + show(n.y) + ")"
	case *logic:
		return "(" + show(n.x) + " " + n.op + " " + show(n.y) + ")"
	}
	return "?"
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		src, tree string
		k, n      int
		expr      string
	}{
		// the plain gate
		{src: "failed == 0", tree: "(failed == 0)"},
		// * binds tighter than <, reference refs are names
		{src: "p99_ms < 1.3 * reference.p99_ms", tree: "(p99_ms < (1.3 * reference.p99_ms))"},
		{src: "p99_ms < 1.3 * baseline.p99_ms", tree: "(p99_ms < (1.3 * baseline.p99_ms))"},
		// && binds tighter than ||
		{src: "failed == 0 || ok > 1 && killed == false", tree: "((failed == 0) || ((ok > 1) && (killed == 0)))"},
		// parentheses override
		{src: "(failed == 0 || ok > 1) && killed == true", tree: "(((failed == 0) || (ok > 1)) && (killed == 1))"},
		// - is left-associative, * before +
		{src: "requests - ok - failed + 2 * 3 >= 0", tree: "((((requests - ok) - failed) + (2 * 3)) >= 0)"},
		// / is left-associative
		{src: "p99_ms / 2 / 2 <= 0.5", tree: "(((p99_ms / 2) / 2) <= 0.5)"},
		// unary minus, nested
		{src: "-ok < --1", tree: "((-ok) < (-(-1)))"},
		// null literal and dotted by_class names
		{src: "exit_code != null && by_class.http_502 == 0", tree: "((exit_code != null) && (by_class.http_502 == 0))"},
		{src: "null == exit_after_ms", tree: "(null == exit_after_ms)"},
		// k of n
		{src: "failed == 0 @ 2/3", tree: "(failed == 0)", k: 2, n: 3, expr: "failed == 0"},
		{src: "failed == 0 @2", tree: "(failed == 0)", k: 2, expr: "failed == 0"},
		{src: "  failed==0@3/3  ", tree: "(failed == 0)", k: 3, n: 3, expr: "failed==0"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			e, err := Parse(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Check(); err != nil {
				t.Fatal(err)
			}
			if got := show(e.root); got != tt.tree {
				t.Errorf("tree = %s, want %s", got, tt.tree)
			}
			if e.K != tt.k || e.N != tt.n {
				t.Errorf("k/n = %d/%d, want %d/%d", e.K, e.N, tt.k, tt.n)
			}
			if tt.expr != "" && e.Expr != tt.expr {
				t.Errorf("Expr = %q, want %q", e.Expr, tt.expr)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		col  int
		want string // substring of the message
	}{
		{"p99_ms < ", 10, `expected a number, metric name or "(" at end of input`},
		{"", 1, "at end of input"},
		{"failed = 0", 8, `unexpected character '=' (did you mean "=="?)`},
		{"failed == 0 & ok > 1", 13, `did you mean "&&"`},
		{"failed == 0 | ok > 1", 13, `did you mean "||"`},
		{"!killed", 1, `did you mean "!="`},
		{"failed == 0 )", 13, `unmatched ")", got ")"`},
		{"(failed == 0", 13, `expected ")" to close the "(" at col 1, got end of input`},
		{"failed", 1, "expected a comparison"},
		{"failed + 1", 8, "expected a comparison"},
		{"0 < failed < 3", 12, "comparisons do not chain"},
		{"(failed == 0) == 1", 15, "a side is already a comparison"},
		{"failed == 0 && 3", 16, `"&&" joins comparisons, but this side is a number`},
		{"(failed == 0) + 1 > 0", 15, `"+" needs numbers`},
		{"exit_after_ms < null", 17, "null can only be compared with == or !="},
		{"null + 1 == 2", 1, "null can only be compared"},
		{"-null == 1", 2, "null can only be compared"},
		{"p99_ms < 3s", 11, "units are not part of the language"},
		{"p99_ms < 1.", 12, "expected a digit after the decimal point"},
		{"failed == 0 @", 14, "expected a run count"},
		{"failed == 0 @ 0", 15, "expected a run count"},
		{"failed == 0 @ 2/", 17, "expected a run total"},
		{"failed == 0 @ 4/3", 17, "cannot need more runs than the total"},
		{"failed == 0 @ 1.5", 15, "expected a run count"},
		{"failed == 0 @ 2 2", 17, "expected end of input after the run count"},
		{"failed ok", 8, `expected an operator, got "ok"`},
		{"ok < é", 6, "unexpected character 'é'"},
		{"é < ok", 1, "unexpected character"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := Parse(tt.src)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if pe.Col != tt.col || !strings.Contains(pe.Msg, tt.want) {
				t.Errorf("got col %d %q, want col %d containing %q", pe.Col, pe.Msg, tt.col, tt.want)
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	_, err := Parse("p99_ms < ")
	want := `expect "p99_ms < ": col 10: expected a number, metric name or "(" at end of input`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if got, want := err.(*Error).Caret(), "  p99_ms < \n           ^"; got != want {
		t.Errorf("caret = %q, want %q", got, want)
	}
}

func TestCheckNames(t *testing.T) {
	tests := []struct {
		src  string
		col  int
		want string // full message; "" = valid
	}{
		{"by_class.http_502 + by_class.not_sent + by_class.unknown == 0", 0, ""},
		{"reference.p99_ms > 0 && accounting_ok == true", 0, ""},
		{"baseline.p99_ms > 0 && accounting_ok == true", 0, ""},
		{"p99ms < 3", 1, `unknown metric "p99ms" (did you mean "p99_ms"?)`},
		{"failed == 0 && dropped_inflght == 0", 16, `unknown metric "dropped_inflght" (did you mean "dropped_inflight"?)`},
		{"p99_ms < 2 * reference.p99", 14, `unknown reference metric "p99" (did you mean "reference.p99_ms"?)`},
		{"p99_ms < 2 * baseline.p99", 14, `unknown reference metric "p99" (did you mean "reference.p99_ms"?)`},
		{"latency < 3", 1, `unknown metric "latency"`},
		{"by_class.http_5O2 == 0", 1, `unknown metric "by_class.http_5O2" (did you mean "by_class.http_502"?)`},
		{"by_class.resets == 0", 1, `unknown metric "by_class.resets" (did you mean "by_class.reset"?)`},
		{"reference. == 0", 1, `expected a metric name after "reference."`},
		{"baseline. == 0", 1, `expected a metric name after "baseline."`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			e, err := Parse(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			err = e.Check()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.Col != tt.col || pe.Msg != tt.want {
				t.Errorf("err = %v, want col %d %q", err, tt.col, tt.want)
			}
		})
	}
}

func TestParseAll(t *testing.T) {
	exps, err := ParseAll([]string{"failed == 0", "p99 < 3", "ok >"})
	if len(exps) != 1 || err == nil {
		t.Fatalf("got %d expectations, err %v", len(exps), err)
	}
	for _, want := range []string{`"p99 < 3": col 1: unknown metric`, `"ok >": col 5`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q lacks %q", err, want)
		}
	}
}

// Nesting is limited to MaxDepth levels of parentheses and unary minus,
// counted together; the error points at the first "(" or "-" past it.
func TestParseDepth(t *testing.T) {
	paren := func(n int, inner string) string {
		return strings.Repeat("(", n) + inner + strings.Repeat(")", n)
	}
	tests := []struct {
		name string
		src  string
		col  int // 0: valid
	}{
		{"parentheses at the limit", paren(MaxDepth, "failed == 0"), 0},
		{"parentheses past the limit", paren(MaxDepth+1, "failed == 0"), MaxDepth + 1},
		{"unclosed parentheses past the limit", strings.Repeat("(", MaxDepth+5), MaxDepth + 1},
		{"unary minus at the limit", strings.Repeat("-", MaxDepth) + "1 < 2", 0},
		{"unary minus past the limit", strings.Repeat("-", MaxDepth+1) + "1 < 2", MaxDepth + 1},
		{"both count together", strings.Repeat("-(", MaxDepth/2) + "1" + strings.Repeat(")", MaxDepth/2) + " < 2", 0},
		{"both past the limit", "(" + strings.Repeat("-(", MaxDepth/2) + "1" + strings.Repeat(")", MaxDepth/2+1) + " < 2", MaxDepth + 1},
		{"depth is per path, not per source", paren(MaxDepth, "failed == 0") + " && " + paren(MaxDepth, "ok > 0"), 0},
		{"after a comparison", "failed == " + strings.Repeat("(", MaxDepth+1) + "0", len("failed == ") + MaxDepth + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.src)
			if tt.col == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if pe.Col != tt.col || !strings.Contains(pe.Msg, "nested more than 64 levels deep") {
				t.Errorf("got col %d %q, want col %d, nested more than 64 levels", pe.Col, pe.Msg, tt.col)
			}
		})
	}
}

// A megabyte of "(" (a scenario file's expect at the file size limit) is
// refused at the first level past the limit: the source past it is never
// read, and the error quotes only an excerpt.
func TestParseDeepIsBounded(t *testing.T) {
	src := strings.Repeat("(", 1<<20) + "failed == 0"
	var err error
	allocs := testing.AllocsPerRun(3, func() { _, err = Parse(src) })
	var pe *Error
	if !errors.As(err, &pe) || pe.Col != MaxDepth+1 {
		t.Fatalf("err = %.200v, want col %d", err, MaxDepth+1)
	}
	if allocs > 200 {
		t.Errorf("%v allocations: the parser read past its first error", allocs)
	}
	if msg := err.Error() + pe.Caret(); len(msg) > 400 {
		t.Errorf("error and caret are %d bytes: they echo the source", len(msg))
	}
}

// An error in a long source quotes a window around the column, marked
// "…" where cut, with the source's length; the caret stays under the
// offending character.
func TestErrorExcerpt(t *testing.T) {
	many := strings.Repeat("ok > 1 && ", 20)
	tests := []struct {
		src, want string
	}{
		// cut at the end only
		{"p99_ms < 3s && " + many + "ok > 0",
			`expect "p99_ms < 3s && ok > 1 && ok > 1 && ok > 1 && ok > 1 && ok > 1 && ok > 1 && ok > …" (221 characters): col 11: unexpected 's'`},
		// cut at both ends: the column a third of the way in
		{many + "p99_ms < 3s && " + many + "ok > 0",
			`expect "… 1 && ok > 1 && p99_ms < 3s && ok > 1 && ok > 1 && ok > 1 && ok > 1 && ok > 1 &&…" (421 characters): col 211: unexpected 's'`},
		// cut at the start only: the window ends with the source
		{many + "p99_ms < 3s",
			`expect "…k > 1 && ok > 1 && ok > 1 && ok > 1 && ok > 1 && ok > 1 && ok > 1 && p99_ms < 3s" (211 characters): col 211: unexpected 's'`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.src)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("err = %v", err)
		}
		if !strings.HasPrefix(pe.Error(), tt.want) {
			t.Errorf("Error() = %s\nwant prefix  %s", pe.Error(), tt.want)
		}
		lines := strings.Split(pe.Caret(), "\n")
		caret := []rune(lines[1])
		text := []rune(lines[0])
		at := len(caret) - 1
		if len(lines) != 2 || caret[at] != '^' || at >= len(text) || text[at] != 's' {
			t.Errorf("caret not under the 's':\n%s", pe.Caret())
		}
	}
}

// TestDeprecations: baseline.NAME, the old spelling of reference.NAME,
// parses onto the same reference, and each use is one Deprecation naming
// its column, the spelling as written and the one to use.
func TestDeprecations(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want []string
	}{
		{"p99_ms < 1.3 * reference.p99_ms", nil},
		{"p99_ms < 1.3 * baseline.p99_ms", []string{`expect "p99_ms < 1.3 * baseline.p99_ms": col 16: baseline.p99_ms is deprecated: use reference.p99_ms`}},
		{"baseline.failed == 0 && p99_ms < baseline.p99_ms + reference.p99_ms @ 2/3", []string{
			`expect "baseline.failed == 0 && p99_ms < baseline.p99_ms + reference.p99_ms @ 2/3": col 1: baseline.failed is deprecated: use reference.failed`,
			`expect "baseline.failed == 0 && p99_ms < baseline.p99_ms + reference.p99_ms @ 2/3": col 34: baseline.p99_ms is deprecated: use reference.p99_ms`}},
		{"baseline_p99_ms > 0", nil}, // the baseline variant's metric, not a reference
	} {
		t.Run(tt.src, func(t *testing.T) {
			e := mustParse(tt.src)
			var got []string
			for _, d := range e.Deprecations() {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("deprecations\n%q\nwant\n%q", got, tt.want)
			}
			if uses := strings.Contains(tt.src, "baseline.") || strings.Contains(tt.src, "reference."); e.UsesReference() != uses {
				t.Errorf("UsesReference %v, want %v", e.UsesReference(), uses)
			}
		})
	}
}
