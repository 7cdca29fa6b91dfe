package gate_test

import (
	"fmt"

	"github.com/shutdownlab/shutdownlab/gate"
	"github.com/shutdownlab/shutdownlab/report"
)

// Helpers building the metrics of one run that dropped nothing and exited
// exitMs after the signal, or never (nil).
func intp(n int) *int            { return &n }
func floatp(f float64) *float64  { return &f }
func exited(ms float64) *float64 { return floatp(ms) }
func neverExited() *float64      { return nil }
func run(exitMs *float64) *report.Metrics {
	m := &report.Metrics{Requests: 100, OK: 100, ByClass: map[string]int{"ok": 100},
		DroppedInflight: intp(0), ExitAfterMs: exitMs}
	if exitMs != nil {
		m.ExitCode = intp(0)
	}
	return m
}

// Parse reads an expectation with its optional k-of-n suffix; Check then
// rejects unknown metric names.
func ExampleParse() {
	e, err := gate.Parse("exit_after_ms < 3000 @ 2/3")
	if err == nil {
		err = e.Check()
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("expr %q, %d of %d runs, names %v\n", e.Expr, e.K, e.N, e.Names())
	// Output:
	// expr "exit_after_ms < 3000", 2 of 3 runs, names [exit_after_ms]
}

// A mistake is an *Error with the column it was found at; Caret points at it.
func ExampleParse_error() {
	_, err := gate.Parse("exit_code == 0 &&")
	fmt.Println(err)
	if pe, ok := err.(*gate.Error); ok {
		fmt.Println(pe.Caret())
	}
	e, _ := gate.Parse("dropped_inflght == 0")
	fmt.Println(e.Check())
	// Output:
	// expect "exit_code == 0 &&": col 18: expected a number, metric name or "(" at end of input
	//   exit_code == 0 &&
	//                    ^
	// expect "dropped_inflght == 0": col 1: unknown metric "dropped_inflght" (did you mean "dropped_inflight"?)
}

// Eval judges one run's metrics. A null metric (here: the replica never
// exited) fails every ordering, and the outcome says why.
func ExampleExpectation_Eval() {
	e, _ := gate.Parse("dropped_inflight == 0 && exit_after_ms < 3000")
	for _, m := range []*report.Metrics{run(exited(412.5)), run(neverExited())} {
		out, err := e.Eval(m, nil)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(out.Pass, out.Measured(), out.Notes)
	}
	// Output:
	// true dropped_inflight = 0, exit_after_ms = 412.5 []
	// false dropped_inflight = 0, exit_after_ms = NEVER [exit_after_ms is null (NEVER)]
}

// Judge applies an expectation to a variant's valid runs: every run must
// pass unless a k-of-n suffix lowers the bar.
func ExampleJudge() {
	runs := []*report.Metrics{run(exited(350)), run(neverExited()), run(exited(420))}
	for _, src := range []string{"exit_after_ms < 3000", "exit_after_ms < 3000 @ 2/3"} {
		e, _ := gate.Parse(src)
		v := gate.Judge(e, runs, 0, nil)
		fmt.Printf("%s: pass=%t, %s\n", src, v.Pass, v.Reason)
	}
	e, _ := gate.Parse("exit_after_ms < 3000")
	for _, line := range gate.Judge(e, runs, 0, nil).Messages() {
		fmt.Println(line)
	}
	// Output:
	// exit_after_ms < 3000: pass=false, held in 2 of 3 valid runs, need 3
	// exit_after_ms < 3000 @ 2/3: pass=true, held in 2 of 3 valid runs
	// run 1: exit_after_ms = 350 (pass)
	// run 2: exit_after_ms = NEVER (want exit_after_ms < 3000; exit_after_ms is null (NEVER))
	// run 3: exit_after_ms = 420 (pass)
}
