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
	j := NewJudge(res)
	code := j.Vals("init=false", "exit_code")
	exit := j.Vals("init=false", "exit_after_ms")
	handled := j.Vals("init=false", "signal_handled")
	initExit := j.Vals("init=true", "exit_code")
	if j.OK() {
		if Every(code, Equals(2)) {
			j.Check(false, "init=false: exits with code 2 in every run instead of running on")
		} else {
			j.Check(Every(exit, never), "init=false: exited within the window in %s runs", Count(exit, notNever))
		}
		j.Check(Every(handled, IsFalse), "init=false: a signal was handled in %s runs", Count(handled, IsTrue))
		j.Check(Every(initExit, notNever), "init=true: did not exit within the window in %s runs", Count(initExit, never))
	}
	return j.Verdict()
}

func notNever(x report.Value) bool { return !x.Null }

func ruleP2(res *report.Result) Verdict {
	j := NewJudge(res)
	drop := j.Vals("mode=none", "dropped_inflight")
	j.Vals("mode=none", "inflight_at_action")
	exit := j.Vals("mode=none", "exit_after_ms")
	if j.OK() {
		j.Check(Every(drop, AtLeast(1)), "mode=none: dropped no in-flight request in %s runs", Count(drop, Equals(0)))
		j.Check(Every(exit, Below(1000)), "mode=none: did not exit within 1 s in %s runs", Count(exit, NotBelow(1000)))
	}
	return j.Verdict()
}

func ruleP3(res *report.Result) Verdict {
	j := NewJudge(res)
	drop := j.Vals("mode=close", "dropped_inflight")
	served := j.Vals("mode=close", "served_after_signal")
	exit := j.Vals("mode=close", "exit_after_ms")
	if j.OK() {
		j.Check(Every(drop, Equals(0)), "mode=close: dropped in-flight requests in %s runs", Count(drop, AtLeast(1)))
		j.Check(Every(served, AtLeast(50)), "mode=close: served < 50 requests after the signal in %s runs", Count(served, Below(50)))
		j.Check(Every(exit, AtLeast(1000)), "mode=close: exited within 1 s of the signal (or never) in %s runs", Count(exit, notAtLeast(1000)))
	}
	return j.Verdict()
}

func notAtLeast(n float64) func(report.Value) bool {
	return func(x report.Value) bool { return !AtLeast(n)(x) }
}

func ruleP4(res *report.Result) Verdict {
	j := NewJudge(res)
	closeExit := j.Vals("mode=close", "exit_after_ms")
	j.Vals("mode=close", "failed")
	fullExit := j.Vals("mode=full", "exit_after_ms")
	drain := j.Vals("mode=full", "drain_ms")
	j.Vals("mode=full", "failed")
	if j.OK() {
		j.Check(Every(closeExit, never), "mode=close: A exited within the window in %s runs", Count(closeExit, notNever))
		j.Check(Every(fullExit, Between(1100, 4500)), "mode=full: exit outside 1.1–4.5 s in %s runs", Count(fullExit, Not(Between(1100, 4500))))
		j.Check(Every(drain, Between(1000, 4000)), "mode=full: drain outside 1.0–4.0 s (or none) in %s runs", Count(drain, Not(Between(1000, 4000))))
	}
	return j.Verdict()
}

// probeVariants returns the variants a probe claim judges: those of mode
// close when the scenario varies the mode, else every variant but a
// baseline.
func probeVariants(j *Judge) []*report.Variant {
	if !j.OK() {
		return nil
	}
	var all, closeOnly []*report.Variant
	for i := range j.res.Variants {
		v := &j.res.Variants[i]
		if v.IsBaseline() {
			continue
		}
		all = append(all, v)
		if MatchLabel(v.Label, "mode=close") {
			closeOnly = append(closeOnly, v)
		}
	}
	if len(closeOnly) > 0 {
		all = closeOnly
	}
	for _, v := range all {
		if len(v.ValidMetrics()) == 0 {
			j.Missing("variant %s of %s has no valid run", v.Label, j.res.Scenario)
			return nil
		}
	}
	if len(all) == 0 {
		j.Missing("no variant in the %s result", j.res.Scenario)
	}
	return all
}

func ruleP5(res *report.Result) Verdict {
	j := NewJudge(res)
	type in struct{ closed, after []report.Value }
	var ins []in
	vs := probeVariants(j)
	for _, v := range vs {
		ins = append(ins, in{j.valsOf(v, "probe_server_closed"), j.valsOf(v, "probe_socket_closed_after_signal_ms")})
	}
	if j.OK() {
		for i, v := range vs {
			j.Check(Every(ins[i].closed, IsTrue), "%s: the server did not close the socket in %s runs", v.Label, Count(ins[i].closed, Not(IsTrue)))
			j.Check(Every(ins[i].after, Below(100)), "%s: socket closed ≥ 100 ms after the signal (or never) in %s runs", v.Label, Count(ins[i].after, NotBelow(100)))
		}
	}
	return j.Verdict()
}

func ruleP6(res *report.Result) Verdict {
	j := NewJudge(res)
	type in struct{ resp, keep, closed []report.Value }
	var ins []in
	vs := probeVariants(j)
	for _, v := range vs {
		ins = append(ins, in{j.valsOf(v, "probe_response_after_start_ms"), j.valsOf(v, "probe_response_keepalive"),
			j.valsOf(v, "probe_socket_closed_after_response_ms")})
	}
	if j.OK() {
		for i, v := range vs {
			j.Check(Every(ins[i].resp, Between(3500, 5000)), "%s: response outside 3.5–5 s in %s runs", v.Label, Count(ins[i].resp, Not(Between(3500, 5000))))
			j.Check(Every(ins[i].keep, IsTrue), "%s: response did not say keep-alive in %s runs", v.Label, Count(ins[i].keep, Not(IsTrue)))
			lo, hi := 1000.0, 1e12
			if ka, ok := keepAliveMs(v); ok {
				lo, hi = ka, ka+3000
			}
			j.Check(Every(ins[i].closed, Between(lo, hi)), "%s: socket closed outside %s after the response in %s runs",
				v.Label, MsRange(lo, hi), Count(ins[i].closed, Not(Between(lo, hi))))
		}
	}
	return j.Verdict()
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

func ruleP7(res *report.Result) Verdict {
	j := NewJudge(res)
	drop := j.Vals("", "dropped_inflight")
	after := j.Vals("", "failed_after_signal")
	afterExit := j.Vals("", "failed_after_exit")
	if j.OK() {
		j.Check(Every(drop, Equals(0)), "in-flight requests dropped in %s runs", Count(drop, AtLeast(1)))
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
		j.Check(newFail > 0, "no new request failed while the process ran, in %d runs (published: in 1 of 3; more runs may show it)", len(after))
	}
	return j.Verdict()
}

func ruleP8(res *report.Result) Verdict {
	j := NewJudge(res)
	noDeadline := j.Vals("DRAIN_MS=0", "exit_after_ms")
	code := j.Vals("DRAIN_MS=5000", "exit_code")
	exit := j.Vals("DRAIN_MS=5000", "exit_after_ms")
	ab := j.Vals("DRAIN_MS=5000", "abandoned_inflight")
	if j.OK() {
		j.Check(Every(noDeadline, never), "DRAIN_MS=0: exited within the window in %s runs", Count(noDeadline, notNever))
		j.Check(Every(code, Equals(1)), "DRAIN_MS=5000: exit code not 1 in %s runs", Count(code, Not(Equals(1))))
		j.Check(Every(exit, Between(5000, 7500)), "DRAIN_MS=5000: exit outside 5.0–7.5 s in %s runs", Count(exit, Not(Between(5000, 7500))))
		j.Check(Every(ab, AtLeast(1)), "DRAIN_MS=5000: no abandoned in-flight count logged in %s runs", Count(ab, Not(AtLeast(1))))
	}
	return j.Verdict()
}

func ruleP9(res *report.Result) Verdict {
	j := NewJudge(res)
	c10 := j.Vals("timeout=10s", "exit_code")
	e10 := j.Vals("timeout=10s", "exit_after_ms")
	s10 := j.Vals("timeout=10s", "job_steps")
	k10 := j.Vals("timeout=10s", "job_committed")
	c20 := j.Vals("timeout=20s", "exit_code")
	e20 := j.Vals("timeout=20s", "exit_after_ms")
	s20 := j.Vals("timeout=20s", "job_steps")
	k20 := j.Vals("timeout=20s", "job_committed")
	if j.OK() {
		j.Check(Every(c10, Equals(137)), "timeout=10s: exit code not 137 in %s runs", Count(c10, Not(Equals(137))))
		j.Check(Every(e10, Between(9500, 12000)), "timeout=10s: exit outside 9.5–12 s in %s runs", Count(e10, Not(Between(9500, 12000))))
		j.Check(Every(s10, Between(10, 30)), "timeout=10s: job steps outside 10–29 in %s runs", Count(s10, Not(Between(10, 30))))
		j.Check(Every(k10, IsFalse), "timeout=10s: the job committed in %s runs", Count(k10, IsTrue))
		j.Check(Every(c20, Equals(0)), "timeout=20s: exit code not 0 in %s runs", Count(c20, Not(Equals(0))))
		j.Check(Every(e20, Between(10000, 20000)), "timeout=20s: exit outside 10–20 s in %s runs", Count(e20, Not(Between(10000, 20000))))
		j.Check(Every(s20, Equals(30)), "timeout=20s: job steps not 30 in %s runs", Count(s20, Not(Equals(30))))
		j.Check(Every(k20, IsTrue), "timeout=20s: no COMMIT in %s runs", Count(k20, Not(IsTrue)))
	}
	return j.Verdict()
}

var caddyModes = []string{"mode=none", "mode=close", "mode=full"}

func ruleP10(res *report.Result) Verdict {
	j := NewJudge(res)
	failed := map[string][]report.Value{}
	for _, m := range caddyModes {
		failed[m] = j.Vals(m, "failed")
		j.Vals(m, "by_class.http_503")
		j.Vals(m, "by_class.http_502")
	}
	if j.OK() {
		for _, m := range caddyModes {
			j.Check(Median(failed[m]) >= 1, "%s: the median run has no failed GET (%s runs with failures)", m, Count(failed[m], AtLeast(1)))
		}
	}
	return j.Verdict()
}

func ruleP11(res *report.Result) Verdict {
	j := NewJudge(res)
	failed := map[string][]report.Value{}
	for _, m := range caddyModes {
		failed[m] = j.Vals(m, "failed")
	}
	if j.OK() {
		for _, m := range caddyModes {
			j.Check(Every(failed[m], Equals(0)), "%s: failed GETs in %s runs", m, Count(failed[m], AtLeast(1)))
		}
	}
	return j.Verdict()
}

func ruleP12(res *report.Result) Verdict {
	j := NewJudge(res)
	ghost := map[string][]report.Value{}
	lost := map[string][]report.Value{}
	var ratio []report.Value
	for _, m := range caddyModes {
		ghost[m] = j.Vals(m, "ghost_writes")
		lost[m] = j.Vals(m, "lost_writes")
		r := j.Vals(m, "p99_vs_baseline")
		if m == "mode=full" {
			ratio = r
		}
	}
	j.Vals("mode=full", "baseline_p99_ms")
	if j.OK() {
		for _, m := range caddyModes[:2] {
			j.Check(Median(ghost[m]) >= 1, "%s: the median run has no ghost write", m)
		}
		j.Check(Every(ghost["mode=full"], Equals(0)), "mode=full: ghost writes in %s runs", Count(ghost["mode=full"], Not(Equals(0))))
		for _, m := range caddyModes {
			j.Check(!some(lost[m], AtLeast(1)), "%s: LOST WRITES in %s runs", m, Count(lost[m], AtLeast(1)))
		}
		j.Check(Median(ratio) >= 1.2, "mode=full: median p99_vs_baseline below 1.2")
	}
	return j.Verdict()
}
