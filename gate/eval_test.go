package gate

import (
	"errors"
	"slices"
	"testing"

	"github.com/shutdownlab/shutdownlab/report"
)

func TestEval(t *testing.T) {
	clean := met(0, 0, 1200, 300)                                         // exited 0 after 1.2 s, p99 300 ms
	lossy := met(3, 2, 1200, 300)                                         // 3 failures, 2 of them in flight
	never := met(0, 0, -1, 300)                                           // never exited
	noOK := report.Metrics{ByClass: map[string]int{}, AccountingOK: true} // no action, no ok request
	base := MetricsReference(&report.Metrics{P99Ms: fp(250), ByClass: map[string]int{}})
	nullBase := MetricsReference(&noOK)
	tests := []struct {
		name  string
		src   string
		m     report.Metrics
		base  Reference
		pass  bool
		vals  string
		notes []string
	}{
		// comparisons
		{name: "eq holds", src: "failed == 0", m: clean, pass: true, vals: "failed = 0"},
		{name: "eq fails", src: "failed == 0", m: lossy, vals: "failed = 3"},
		{name: "ne", src: "failed != 0", m: lossy, pass: true, vals: "failed = 3"},
		{name: "lt", src: "exit_after_ms < 1200", m: clean, vals: "exit_after_ms = 1200"},
		{name: "le", src: "exit_after_ms <= 1200", m: clean, pass: true, vals: "exit_after_ms = 1200"},
		{name: "gt", src: "ok > 96", m: lossy, pass: true, vals: "ok = 97"},
		{name: "ge", src: "ok >= 98", m: lossy, vals: "ok = 97"},
		{name: "bool true", src: "accounting_ok == true && killed == false", m: clean, pass: true, vals: "accounting_ok = true, killed = false"},
		{name: "and fails", src: "failed == 0 && dropped_inflight == 0", m: lossy, vals: "failed = 3, dropped_inflight = 2"},
		{name: "or holds", src: "failed == 0 || dropped_inflight < 5", m: lossy, pass: true, vals: "failed = 3, dropped_inflight = 2"},
		{name: "by_class absent is 0", src: "by_class.http_503 == 0 && by_class.http_502 == 3", m: lossy, pass: true, vals: "by_class.http_503 = 0, by_class.http_502 = 3"},
		{name: "repeated name listed once", src: "failed >= 0 && failed <= 3", m: lossy, pass: true, vals: "failed = 3"},
		// arithmetic
		{name: "arith", src: "failed - dropped_inflight == 1", m: lossy, pass: true, vals: "failed = 3, dropped_inflight = 2"},
		{name: "precedence", src: "ok + failed * 2 == 103", m: lossy, pass: true, vals: "ok = 97, failed = 3"},
		{name: "unary minus", src: "-failed == 0 - 3", m: lossy, pass: true, vals: "failed = 3"},
		{name: "ratio", src: "failed / requests < 0.05", m: lossy, pass: true, vals: "failed = 3, requests = 100"},
		{name: "division by zero is null", src: "failed / dropped_inflight < 1", m: clean, vals: "failed = 0, dropped_inflight = 0",
			notes: []string{"division by zero at col 8 gives null"}},
		// null rules
		{name: "NEVER never passes <", src: "exit_after_ms < 3000", m: never, vals: "exit_after_ms = NEVER",
			notes: []string{"exit_after_ms is null (NEVER)"}},
		{name: "NEVER never passes >=", src: "exit_after_ms >= 0", m: never, vals: "exit_after_ms = NEVER",
			notes: []string{"exit_after_ms is null (NEVER)"}},
		{name: "null != number is false", src: "exit_code != 137", m: never, vals: "exit_code = NEVER",
			notes: []string{"exit_code is null (NEVER)"}},
		{name: "null == number is false", src: "exit_code == 0", m: never, vals: "exit_code = NEVER",
			notes: []string{"exit_code is null (NEVER)"}},
		{name: "null == null metric is false", src: "exit_code == exit_after_ms", m: never, vals: "exit_code = NEVER, exit_after_ms = NEVER",
			notes: []string{"exit_code is null (NEVER)", "exit_after_ms is null (NEVER)"}},
		{name: "== null on null", src: "exit_code == null", m: never, pass: true, vals: "exit_code = NEVER"},
		{name: "!= null on null", src: "exit_code != null", m: never, vals: "exit_code = NEVER"},
		{name: "!= null on value", src: "exit_code != null && exit_code == 0", m: clean, pass: true, vals: "exit_code = 0"},
		{name: "arith null is null", src: "exit_after_ms + 1 == null", m: never, pass: true, vals: "exit_after_ms = NEVER"},
		{name: "arith null in <", src: "exit_after_ms - 100 < 3000", m: never, vals: "exit_after_ms = NEVER",
			notes: []string{"exit_after_ms is null (NEVER)"}},
		{name: "n/a word", src: "dropped_inflight <= 0", m: noOK, vals: "dropped_inflight = n/a",
			notes: []string{"dropped_inflight is null (n/a)"}},
		{name: "null || true", src: "exit_after_ms < 3000 || failed == 0", m: never, pass: true, vals: "exit_after_ms = NEVER, failed = 0",
			notes: []string{"exit_after_ms is null (NEVER)"}},
		// the reference variant
		{name: "reference holds", src: "p99_ms < 1.3 * reference.p99_ms", m: clean, base: base, pass: true, vals: "p99_ms = 300, reference.p99_ms = 250"},
		{name: "reference fails", src: "p99_ms < 1.1 * reference.p99_ms", m: clean, base: base, vals: "p99_ms = 300, reference.p99_ms = 250"},
		{name: "null reference", src: "p99_ms < 1.3 * reference.p99_ms", m: clean, base: nullBase, vals: "p99_ms = 300, reference.p99_ms = n/a",
			notes: []string{"reference.p99_ms is null (n/a)"}},
		// its deprecated spelling reads the same value, named as written
		{name: "baseline. holds", src: "p99_ms < 1.3 * baseline.p99_ms", m: clean, base: base, pass: true, vals: "p99_ms = 300, baseline.p99_ms = 250"},
		{name: "baseline. fails", src: "p99_ms < 1.1 * baseline.p99_ms", m: clean, base: base, vals: "p99_ms = 300, baseline.p99_ms = 250"},
		{name: "null baseline.", src: "p99_ms < 1.3 * baseline.p99_ms", m: clean, base: nullBase, vals: "p99_ms = 300, baseline.p99_ms = n/a",
			notes: []string{"baseline.p99_ms is null (n/a)"}},
		{name: "both spellings", src: "p99_ms < baseline.p99_ms + reference.p99_ms", m: clean, base: base, pass: true, vals: "p99_ms = 300, baseline.p99_ms = 250, reference.p99_ms = 250"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := mustParse(tt.src).Eval(&tt.m, tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if o.Pass != tt.pass || o.Measured() != tt.vals || !slices.Equal(o.Notes, tt.notes) {
				t.Errorf("got pass %v %q %q, want %v %q %q", o.Pass, o.Measured(), o.Notes, tt.pass, tt.vals, tt.notes)
			}
		})
	}
}

func TestEvalErrors(t *testing.T) {
	m := met(0, 0, 100, 10)
	for _, src := range []string{"p99_ms < reference.p99_ms", "p99_ms < baseline.p99_ms"} {
		if _, err := mustParse(src).Eval(&m, nil); !errors.Is(err, ErrNoReference) {
			t.Errorf("%s, no reference: err = %v", src, err)
		}
	}
	if _, err := mustParse("failed == 0").Eval(nil, nil); err == nil {
		t.Errorf("nil metrics: no error")
	}
	e, _ := Parse("nosuch == 0") // Check skipped
	if _, err := e.Eval(&m, nil); err == nil {
		t.Errorf("unknown name: no error")
	}
}

func TestMedianReference(t *testing.T) {
	a, b, c := met(0, 0, 100, 300), met(0, 0, -1, 200), met(0, 0, 300, 250)
	base := MedianReference([]*report.Metrics{&a, &b, &c})
	tests := []struct {
		name string
		want report.Value
	}{
		{"p99_ms", report.Value{V: 250}},        // median of 200, 250, 300
		{"exit_after_ms", report.Value{V: 100}}, // lower middle of 100, 300 (NEVER skipped)
		{"killed", report.Value{V: 0}},          // bools are 0/1
		{"drain_ms", report.Value{Null: true}},  // null everywhere
		{"by_class.ok", report.Value{V: 100}},
	}
	for _, tt := range tests {
		if got, ok := base(tt.name); !ok || got != tt.want {
			t.Errorf("%s = %+v %v, want %+v", tt.name, got, ok, tt.want)
		}
	}
	if _, ok := base("nosuch"); ok {
		t.Errorf("unknown name known")
	}
	if v, _ := MedianReference(nil)("p99_ms"); !v.Null {
		t.Errorf("no runs: %+v, want null", v)
	}
}
