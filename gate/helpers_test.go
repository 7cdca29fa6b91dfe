package gate

import (
	"github.com/shutdownlab/shutdownlab/report"
)

func ip(n int) *int                     { return &n }
func fp(f float64) *float64             { return &f }
func valid(m report.Metrics) report.Run { return report.Run{Metrics: m, Valid: true} }
func invalid(reason string) report.Run {
	return report.Run{Metrics: report.Metrics{ByClass: map[string]int{}}, Reason: reason}
}

// met builds metrics of a run that exited 0 after exitMs with the given
// failures; exitMs < 0 means NEVER exited.
func met(failed, dropped int, exitMs, p99 float64) report.Metrics {
	m := report.Metrics{Requests: 100, OK: 100 - failed, Failed: failed, AccountingOK: true,
		ByClass: map[string]int{"ok": 100 - failed}, DroppedInflight: ip(dropped), FailedAfterSignal: ip(0),
		P50Ms: fp(p99 / 2), P99Ms: fp(p99), MaxMs: fp(p99 + 10)}
	if failed > 0 {
		m.ByClass["http_502"] = failed
	}
	if exitMs >= 0 {
		m.ExitCode, m.ExitAfterMs = ip(0), fp(exitMs)
	}
	return m
}

// result builds a result of one scenario from variants label → runs.
func result(vs ...report.Variant) *report.Result {
	return &report.Result{Scenario: "direct-inflight", Variants: vs}
}

func variant(label string, runs ...report.Run) report.Variant {
	for i := range runs {
		runs[i].Meta.Run = i + 1
		runs[i].Name = "run-00" + string(rune('1'+i))
	}
	return report.Variant{Label: label, Runs: runs}
}

// mustParse parses and checks src or panics.
func mustParse(src string) *Expectation {
	e, err := Parse(src)
	if err == nil {
		err = e.Check()
	}
	if err != nil {
		panic(err)
	}
	return e
}
