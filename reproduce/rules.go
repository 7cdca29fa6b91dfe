package reproduce

import (
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
)

// The rules, one per claim. Each reads its cells first (so a verdict shows
// every number even when a check fails), then checks only when every input
// was present.

func ruleP1(res *report.Result) Verdict {
	j := newJudge(res)
	code := j.vals("init=false", "exit_code")
	exit := j.vals("init=false", "exit_after_ms")
	handled := j.vals("init=false", "signal_handled")
	initExit := j.vals("init=true", "exit_code")
	if j.ok() {
		if every(code, equals(2)) {
			j.check(false, "init=false: exits with code 2 in every run instead of running on")
		} else {
			j.check(every(exit, never), "init=false: exited within the window in %s runs", count(exit, notNever))
		}
		j.check(every(handled, isFalse), "init=false: a signal was handled in %s runs", count(handled, isTrue))
		j.check(every(initExit, notNever), "init=true: did not exit within the window in %s runs", count(initExit, never))
	}
	return j.verdict("")
}

func notNever(x report.Value) bool { return !x.Null }

func ruleP2(res *report.Result) Verdict {
	j := newJudge(res)
	drop := j.vals("mode=none", "dropped_inflight")
	j.vals("mode=none", "inflight_at_action")
	exit := j.vals("mode=none", "exit_after_ms")
	if j.ok() {
		j.check(every(drop, atLeast(1)), "mode=none: dropped no in-flight request in %s runs", count(drop, equals(0)))
		j.check(every(exit, below(1000)), "mode=none: did not exit within 1 s in %s runs", count(exit, notBelow(1000)))
	}
	return j.verdict("")
}

func notBelow(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !below(n)(x) }
}

func ruleP3(res *report.Result) Verdict {
	j := newJudge(res)
	drop := j.vals("mode=close", "dropped_inflight")
	served := j.vals("mode=close", "served_after_signal")
	exit := j.vals("mode=close", "exit_after_ms")
	if j.ok() {
		j.check(every(drop, equals(0)), "mode=close: dropped in-flight requests in %s runs", count(drop, atLeast(1)))
		j.check(every(served, atLeast(50)), "mode=close: served < 50 requests after the signal in %s runs", count(served, below(50)))
		j.check(every(exit, atLeast(1000)), "mode=close: exited within 1 s of the signal (or never) in %s runs", count(exit, notAtLeast(1000)))
	}
	return j.verdict("")
}

func notAtLeast(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !atLeast(n)(x) }
}

func ruleP4(res *report.Result) Verdict {
	j := newJudge(res)
	closeExit := j.vals("mode=close", "exit_after_ms")
	j.vals("mode=close", "failed")
	fullExit := j.vals("mode=full", "exit_after_ms")
	drain := j.vals("mode=full", "drain_ms")
	j.vals("mode=full", "failed")
	if j.ok() {
		j.check(every(closeExit, never), "mode=close: A exited within the window in %s runs", count(closeExit, notNever))
		j.check(every(fullExit, between(1100, 4500)), "mode=full: exit outside 1.1–4.5 s in %s runs", count(fullExit, not(between(1100, 4500))))
		j.check(every(drain, between(1000, 4000)), "mode=full: drain outside 1.0–4.0 s (or none) in %s runs", count(drain, not(between(1000, 4000))))
	}
	return j.verdict("")
}

func not(p func(report.Value) bool) func(report.Value) bool {
	return func(x report.Value) bool { return !p(x) }
}

// probeVariants returns the variants a probe claim judges: those of mode
// close when the scenario varies the mode, else every variant but a
// baseline.
func probeVariants(j *judge) []*report.Variant {
	if !j.ok() {
		return nil
	}
	var all, closeOnly []*report.Variant
	for i := range j.res.Variants {
		v := &j.res.Variants[i]
		if v.IsBaseline() {
			continue
		}
		all = append(all, v)
		if matchLabel(v.Label, "mode=close") {
			closeOnly = append(closeOnly, v)
		}
	}
	if len(closeOnly) > 0 {
		all = closeOnly
	}
	for _, v := range all {
		if len(v.ValidMetrics()) == 0 {
			j.missing("variant %s of %s has no valid run", v.Label, j.res.Scenario)
			return nil
		}
	}
	if len(all) == 0 {
		j.missing("no variant in the %s result", j.res.Scenario)
	}
	return all
}

func ruleP5(res *report.Result) Verdict {
	j := newJudge(res)
	type in struct{ closed, after []report.Value }
	var ins []in
	vs := probeVariants(j)
	for _, v := range vs {
		ins = append(ins, in{j.valsOf(v, "probe_server_closed"), j.valsOf(v, "probe_socket_closed_after_signal_ms")})
	}
	if j.ok() {
		for i, v := range vs {
			j.check(every(ins[i].closed, isTrue), "%s: the server did not close the socket in %s runs", v.Label, count(ins[i].closed, not(isTrue)))
			j.check(every(ins[i].after, below(100)), "%s: socket closed ≥ 100 ms after the signal (or never) in %s runs", v.Label, count(ins[i].after, notBelow(100)))
		}
	}
	return j.verdict("")
}

func ruleP6(res *report.Result) Verdict {
	j := newJudge(res)
	type in struct{ resp, keep, closed []report.Value }
	var ins []in
	vs := probeVariants(j)
	for _, v := range vs {
		ins = append(ins, in{j.valsOf(v, "probe_response_after_start_ms"), j.valsOf(v, "probe_response_keepalive"),
			j.valsOf(v, "probe_socket_closed_after_response_ms")})
	}
	if j.ok() {
		for i, v := range vs {
			j.check(every(ins[i].resp, between(3500, 5000)), "%s: response outside 3.5–5 s in %s runs", v.Label, count(ins[i].resp, not(between(3500, 5000))))
			j.check(every(ins[i].keep, isTrue), "%s: response did not say keep-alive in %s runs", v.Label, count(ins[i].keep, not(isTrue)))
			lo, hi := 1000.0, 1e12
			if ka, ok := keepAliveMs(v); ok {
				lo, hi = ka, ka+3000
			}
			j.check(every(ins[i].closed, between(lo, hi)), "%s: socket closed outside %s after the response in %s runs",
				v.Label, msRange(lo, hi), count(ins[i].closed, not(between(lo, hi))))
		}
	}
	return j.verdict("")
}

// keepAliveMs is the variant's KEEPALIVE_MS: its runs' parameter, else its
// label's part.
func keepAliveMs(v *report.Variant) (float64, bool) {
	for _, r := range v.Runs {
		if s, ok := r.Meta.Params["target.env.KEEPALIVE_MS"]; ok {
			f, err := strconv.ParseFloat(s, 64)
			return f, err == nil
		}
	}
	for _, p := range strings.Split(v.Label, ",") {
		if k, s, ok := strings.Cut(p, "="); ok && strings.HasSuffix(k, "KEEPALIVE_MS") {
			f, err := strconv.ParseFloat(s, 64)
			return f, err == nil
		}
	}
	return 0, false
}

func msRange(lo, hi float64) string {
	if hi >= 1e12 {
		return "≥ " + report.FormatNumber(report.KindMs, lo) + " ms"
	}
	return report.FormatNumber(report.KindMs, lo) + "–" + report.FormatNumber(report.KindMs, hi) + " ms"
}

func ruleP7(res *report.Result) Verdict {
	j := newJudge(res)
	drop := j.vals("", "dropped_inflight")
	after := j.vals("", "failed_after_signal")
	afterExit := j.vals("", "failed_after_exit")
	if j.ok() {
		j.check(every(drop, equals(0)), "in-flight requests dropped in %s runs", count(drop, atLeast(1)))
		newFail := 0
		for i := range after {
			n := after[i].V
			if i < len(afterExit) && !afterExit[i].Null {
				n -= afterExit[i].V
			}
			if !after[i].Null && n >= 1 {
				newFail++
			}
		}
		j.check(newFail > 0, "no new request failed while the process ran, in %d runs (published: in 1 of 3; more runs may show it)", len(after))
	}
	return j.verdict("")
}

func ruleP8(res *report.Result) Verdict {
	j := newJudge(res)
	noDeadline := j.vals("DRAIN_MS=0", "exit_after_ms")
	code := j.vals("DRAIN_MS=5000", "exit_code")
	exit := j.vals("DRAIN_MS=5000", "exit_after_ms")
	ab := j.vals("DRAIN_MS=5000", "abandoned_inflight")
	if j.ok() {
		j.check(every(noDeadline, never), "DRAIN_MS=0: exited within the window in %s runs", count(noDeadline, notNever))
		j.check(every(code, equals(1)), "DRAIN_MS=5000: exit code not 1 in %s runs", count(code, not(equals(1))))
		j.check(every(exit, between(5000, 7500)), "DRAIN_MS=5000: exit outside 5.0–7.5 s in %s runs", count(exit, not(between(5000, 7500))))
		j.check(every(ab, atLeast(1)), "DRAIN_MS=5000: no abandoned in-flight count logged in %s runs", count(ab, not(atLeast(1))))
	}
	return j.verdict("")
}

func ruleP9(res *report.Result) Verdict {
	j := newJudge(res)
	c10 := j.vals("timeout=10s", "exit_code")
	e10 := j.vals("timeout=10s", "exit_after_ms")
	s10 := j.vals("timeout=10s", "job_steps")
	k10 := j.vals("timeout=10s", "job_committed")
	c20 := j.vals("timeout=20s", "exit_code")
	e20 := j.vals("timeout=20s", "exit_after_ms")
	s20 := j.vals("timeout=20s", "job_steps")
	k20 := j.vals("timeout=20s", "job_committed")
	if j.ok() {
		j.check(every(c10, equals(137)), "timeout=10s: exit code not 137 in %s runs", count(c10, not(equals(137))))
		j.check(every(e10, between(9500, 12000)), "timeout=10s: exit outside 9.5–12 s in %s runs", count(e10, not(between(9500, 12000))))
		j.check(every(s10, between(10, 30)), "timeout=10s: job steps outside 10–29 in %s runs", count(s10, not(between(10, 30))))
		j.check(every(k10, isFalse), "timeout=10s: the job committed in %s runs", count(k10, isTrue))
		j.check(every(c20, equals(0)), "timeout=20s: exit code not 0 in %s runs", count(c20, not(equals(0))))
		j.check(every(e20, between(10000, 20000)), "timeout=20s: exit outside 10–20 s in %s runs", count(e20, not(between(10000, 20000))))
		j.check(every(s20, equals(30)), "timeout=20s: job steps not 30 in %s runs", count(s20, not(equals(30))))
		j.check(every(k20, isTrue), "timeout=20s: no COMMIT in %s runs", count(k20, not(isTrue)))
	}
	return j.verdict("")
}

var caddyModes = []string{"mode=none", "mode=close", "mode=full"}

func ruleP10(res *report.Result) Verdict {
	j := newJudge(res)
	failed := map[string][]report.Value{}
	for _, m := range caddyModes {
		failed[m] = j.vals(m, "failed")
		j.vals(m, "by_class.http_503")
		j.vals(m, "by_class.http_502")
	}
	if j.ok() {
		for _, m := range caddyModes {
			j.check(median(failed[m]) >= 1, "%s: the median run has no failed GET (%s runs with failures)", m, count(failed[m], atLeast(1)))
		}
	}
	return j.verdict("")
}

func ruleP11(res *report.Result) Verdict {
	j := newJudge(res)
	failed := map[string][]report.Value{}
	for _, m := range caddyModes {
		failed[m] = j.vals(m, "failed")
	}
	if j.ok() {
		for _, m := range caddyModes {
			j.check(every(failed[m], equals(0)), "%s: failed GETs in %s runs", m, count(failed[m], atLeast(1)))
		}
	}
	return j.verdict("")
}

func ruleP12(res *report.Result) Verdict {
	j := newJudge(res)
	ghost := map[string][]report.Value{}
	lost := map[string][]report.Value{}
	var ratio []report.Value
	for _, m := range caddyModes {
		ghost[m] = j.vals(m, "ghost_writes")
		lost[m] = j.vals(m, "lost_writes")
		r := j.vals(m, "p99_vs_baseline")
		if m == "mode=full" {
			ratio = r
		}
	}
	j.vals("mode=full", "baseline_p99_ms")
	if j.ok() {
		for _, m := range caddyModes[:2] {
			j.check(median(ghost[m]) >= 1, "%s: the median run has no ghost write", m)
		}
		j.check(every(ghost["mode=full"], equals(0)), "mode=full: ghost writes in %s runs", count(ghost["mode=full"], not(equals(0))))
		for _, m := range caddyModes {
			j.check(!some(lost[m], atLeast(1)), "%s: LOST WRITES in %s runs", m, count(lost[m], atLeast(1)))
		}
		j.check(median(ratio) >= 1.2, "mode=full: median p99_vs_baseline below 1.2")
	}
	return j.verdict("")
}

// median is the lower-middle non-null value (as report's spreads), -1
// when every value is null.
func median(xs []report.Value) float64 {
	d := report.MetricDef{Name: "x", Kind: report.KindCount}
	s := report.SpreadOf(d, xs)
	if s.Median == nil {
		return -1
	}
	return *s.Median
}
