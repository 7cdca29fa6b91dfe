package reproduce

import "github.com/shutdownlab/shutdownlab/report"

// The cluster rules (C1–C4), one per claim, as rules.go: cells first,
// checks only when every input was present. Their scenarios are Node only.

func ruleC1(res *report.Result) Verdict {
	const short, long = "duration=5s", "duration=14s"
	j := newJudge(res)
	forks := j.vals(short, "forks_after_signal")
	codeS := j.vals(short, "exit_code")
	j.vals(short, "exit_after_ms")
	killedS := j.vals(short, "ended_by_engine_kill")
	j.vals(long, "forks_after_signal")
	codeL := j.vals(long, "exit_code")
	j.vals(long, "exit_after_ms")
	killedL := j.vals(long, "ended_by_engine_kill")
	severed := j.vals(long, "severed_at_kill")
	if j.ok() {
		j.check(every(forks, atLeast(1)), "%s: no fork after the signal in %s runs", short, count(forks, not(atLeast(1))))
		j.check(every(codeS, equals(137)), "%s: exit code not 137 in %s runs", short, count(codeS, not(equals(137))))
		j.check(every(killedS, isTrue), "%s: not ended by the engine's SIGKILL in %s runs", short, count(killedS, not(isTrue)))
		j.check(every(codeL, equals(137)), "%s: exit code not 137 in %s runs", long, count(codeL, not(equals(137))))
		j.check(every(killedL, isTrue), "%s: not ended by the engine's SIGKILL in %s runs", long, count(killedL, not(isTrue)))
		j.check(every(severed, atLeast(1)), "%s: no request severed at the kill in %s runs", long, count(severed, not(atLeast(1))))
	}
	return j.verdict("")
}

// c2ResurrectionMs bounds "within milliseconds": the crashed worker's
// replacement is forked less than this after its exit.
const c2ResurrectionMs = 100

// c2GraceMs is cluster-gated's docker stop grace period (-t 10).
const c2GraceMs = 10000

func ruleC2(res *report.Result) Verdict {
	j := newJudge(res)
	crashes := j.vals("default", "crashes")
	sigkill := j.vals("default", "worker_exits_sigkill")
	resurrect := j.vals("default", "resurrection_ms")
	forks := j.vals("default", "forks_after_signal")
	code := j.vals("default", "exit_code")
	exit := j.vals("default", "exit_after_ms")
	self := j.vals("default", "ended_by_self")
	if j.ok() {
		j.check(every(crashes, atLeast(1)), "no crash before the signal in %s runs", count(crashes, not(atLeast(1))))
		j.check(every(sigkill, atLeast(1)), "no worker killed by SIGKILL in %s runs", count(sigkill, not(atLeast(1))))
		j.check(every(resurrect, below(c2ResurrectionMs)), "crashed worker not re-forked within %d ms (or never) in %s runs",
			c2ResurrectionMs, count(resurrect, notBelow(c2ResurrectionMs)))
		j.check(every(forks, equals(0)), "workers forked after the signal in %s runs", count(forks, not(equals(0))))
		j.check(every(code, equals(0)), "exit code not 0 in %s runs", count(code, not(equals(0))))
		j.check(every(self, isTrue), "did not end itself in %s runs", count(self, not(isTrue)))
		j.check(every(exit, below(c2GraceMs)), "did not exit within the %d s grace period in %s runs", c2GraceMs/1000, count(exit, notBelow(c2GraceMs)))
	}
	return j.verdict("")
}

// c3TeardownMs is cluster-teardown's timeout variant; the forced exit must
// come within c3SlackMs after it.
const c3TeardownMs, c3SlackMs = 4000, 1000

func ruleC3(res *report.Result) Verdict {
	const none, timeout = "TEARDOWN_MS=0", "TEARDOWN_MS=4000"
	j := newJudge(res)
	code0 := j.vals(none, "exit_code")
	j.vals(none, "exit_after_ms")
	killed0 := j.vals(none, "ended_by_engine_kill")
	forced0 := j.vals(none, "forced_exit")
	codeT := j.vals(timeout, "exit_code")
	j.vals(timeout, "exit_after_ms")
	forcedT := j.vals(timeout, "forced_exit")
	forcedMs := j.vals(timeout, "forced_exit_ms")
	selfT := j.vals(timeout, "ended_by_self")
	j.vals(timeout, "severed_at_kill")
	if !j.ok() {
		return j.verdict("")
	}
	j.check(every(code0, equals(137)), "%s: exit code not 137 (the plain close did not wait for the SIGKILL) in %s runs",
		none, count(code0, not(equals(137))))
	j.check(every(killed0, isTrue), "%s: not ended by the engine's SIGKILL in %s runs", none, count(killed0, not(isTrue)))
	j.check(every(forced0, isFalse), "%s: forced_exit logged without a timeout in %s runs", none, count(forced0, not(isFalse)))
	j.check(every(forcedT, isTrue), "%s: no forced_exit logged in %s runs", timeout, count(forcedT, not(isTrue)))
	in := between(c3TeardownMs, c3TeardownMs+c3SlackMs)
	j.check(every(forcedMs, in), "%s: forced_exit outside %s after the signal in %s runs", timeout,
		msRange(c3TeardownMs, c3TeardownMs+c3SlackMs), count(forcedMs, not(in)))
	j.check(every(selfT, isTrue), "%s: did not end itself in %s runs", timeout, count(selfT, not(isTrue)))
	forcedCode := func(x report.Value) bool { return !x.Null && x.V != 0 && x.V != 137 }
	j.check(every(codeT, forcedCode), "%s: exit code 0, 137 or none in %s runs", timeout, count(codeT, not(forcedCode)))
	return j.verdict("")
}

// C4's thresholds of fd growth per aborted request: pipe leaks about one
// socket per abort, pipeline none.
const c4PipeGrowth, c4PipelineGrowth = 0.5, 0.2

func ruleC4(res *report.Result) Verdict {
	const held, quick = "path=/proxy?ms=60000", "path=/proxy?ms=300"
	pipe, pipeline := "PROXY_IMPL=pipe,"+held, "PROXY_IMPL=pipeline,"+held
	j := newJudge(res)
	growP := j.vals(pipe, "fd_growth_per_abort")
	j.vals(pipe, "fds_at_signal")
	forcedP := j.vals(pipe, "forced_exit")
	codeP := j.vals(pipe, "exit_code")
	j.vals(pipe, "exit_after_ms")
	growL := j.vals(pipeline, "fd_growth_per_abort")
	j.vals(pipeline, "fds_at_signal")
	forcedL := j.vals(pipeline, "forced_exit")
	codeL := j.vals(pipeline, "exit_code")
	j.vals(pipeline, "exit_after_ms")
	for _, impl := range []string{"PROXY_IMPL=pipe,", "PROXY_IMPL=pipeline,"} {
		j.vals(impl+quick, "fd_growth_per_abort")
		j.vals(impl+quick, "exit_code")
	}
	if !j.ok() {
		return j.verdict("")
	}
	j.check(every(growP, atLeast(c4PipeGrowth)), "pipe: fd growth per abort < %s (or none) in %s runs",
		report.FormatNumber(report.KindRatio, c4PipeGrowth), count(growP, not(atLeast(c4PipeGrowth))))
	j.check(every(forcedP, isTrue), "pipe: exited on its clean shutdown (no forced_exit) in %s runs", count(forcedP, not(isTrue)))
	j.check(every(codeP, not(equals(0))), "pipe: exit code 0 in %s runs", count(codeP, equals(0)))
	j.check(every(growL, below(c4PipelineGrowth)), "pipeline: fd growth per abort ≥ %s (or none) in %s runs",
		report.FormatNumber(report.KindRatio, c4PipelineGrowth), count(growL, notBelow(c4PipelineGrowth)))
	j.check(every(forcedL, isFalse), "pipeline: forced_exit in %s runs", count(forcedL, not(isFalse)))
	j.check(every(codeL, equals(0)), "pipeline: exit code not 0 in %s runs", count(codeL, not(equals(0))))
	return j.verdict("")
}
