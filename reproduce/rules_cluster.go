package reproduce

import "github.com/shutdownlab/shutdownlab/report"

// The cluster rules (C1–C4), one per claim, as rules.go: cells first,
// checks only when every input was present. Their scenarios are Node only.

func ruleC1(res *report.Result) Verdict {
	const short, long = "duration=5s", "duration=14s"
	j := NewJudge(res)
	forks := j.Vals(short, "forks_after_signal")
	codeS := j.Vals(short, "exit_code")
	j.Vals(short, "exit_after_ms")
	killedS := j.Vals(short, "ended_by_engine_kill")
	j.Vals(long, "forks_after_signal")
	codeL := j.Vals(long, "exit_code")
	j.Vals(long, "exit_after_ms")
	killedL := j.Vals(long, "ended_by_engine_kill")
	severed := j.Vals(long, "severed_at_kill")
	if j.OK() {
		j.Check(Every(forks, AtLeast(1)), "%s: no fork after the signal in %s runs", short, Count(forks, Not(AtLeast(1))))
		j.Check(Every(codeS, Equals(137)), "%s: exit code not 137 in %s runs", short, Count(codeS, Not(Equals(137))))
		j.Check(Every(killedS, IsTrue), "%s: not ended by the engine's SIGKILL in %s runs", short, Count(killedS, Not(IsTrue)))
		j.Check(Every(codeL, Equals(137)), "%s: exit code not 137 in %s runs", long, Count(codeL, Not(Equals(137))))
		j.Check(Every(killedL, IsTrue), "%s: not ended by the engine's SIGKILL in %s runs", long, Count(killedL, Not(IsTrue)))
		j.Check(Every(severed, AtLeast(1)), "%s: no request severed at the kill in %s runs", long, Count(severed, Not(AtLeast(1))))
	}
	return j.Verdict()
}

// c2ResurrectionMs bounds "within milliseconds": the crashed worker's
// replacement is forked less than this after its exit.
const c2ResurrectionMs = 100

// c2GraceMs is cluster-gated's docker stop grace period (-t 10).
const c2GraceMs = 10000

func ruleC2(res *report.Result) Verdict {
	j := NewJudge(res)
	crashes := j.Vals("default", "crashes")
	sigkill := j.Vals("default", "worker_exits_sigkill")
	resurrect := j.Vals("default", "resurrection_ms")
	forks := j.Vals("default", "forks_after_signal")
	code := j.Vals("default", "exit_code")
	exit := j.Vals("default", "exit_after_ms")
	self := j.Vals("default", "ended_by_self")
	if j.OK() {
		j.Check(Every(crashes, AtLeast(1)), "no crash before the signal in %s runs", Count(crashes, Not(AtLeast(1))))
		j.Check(Every(sigkill, AtLeast(1)), "no worker killed by SIGKILL in %s runs", Count(sigkill, Not(AtLeast(1))))
		j.Check(Every(resurrect, Below(c2ResurrectionMs)), "crashed worker not re-forked within %d ms (or never) in %s runs",
			c2ResurrectionMs, Count(resurrect, NotBelow(c2ResurrectionMs)))
		j.Check(Every(forks, Equals(0)), "workers forked after the signal in %s runs", Count(forks, Not(Equals(0))))
		j.Check(Every(code, Equals(0)), "exit code not 0 in %s runs", Count(code, Not(Equals(0))))
		j.Check(Every(self, IsTrue), "did not end itself in %s runs", Count(self, Not(IsTrue)))
		j.Check(Every(exit, Below(c2GraceMs)), "did not exit within the %d s grace period in %s runs", c2GraceMs/1000, Count(exit, NotBelow(c2GraceMs)))
	}
	return j.Verdict()
}

// c3TeardownMs is cluster-teardown's timeout variant; the forced exit must
// come within c3SlackMs after it.
const c3TeardownMs, c3SlackMs = 4000, 1000

func ruleC3(res *report.Result) Verdict {
	const none, timeout = "TEARDOWN_MS=0", "TEARDOWN_MS=4000"
	j := NewJudge(res)
	code0 := j.Vals(none, "exit_code")
	j.Vals(none, "exit_after_ms")
	killed0 := j.Vals(none, "ended_by_engine_kill")
	forced0 := j.Vals(none, "forced_exit")
	codeT := j.Vals(timeout, "exit_code")
	j.Vals(timeout, "exit_after_ms")
	forcedT := j.Vals(timeout, "forced_exit")
	forcedMs := j.Vals(timeout, "forced_exit_ms")
	selfT := j.Vals(timeout, "ended_by_self")
	j.Vals(timeout, "severed_at_kill")
	if !j.OK() {
		return j.Verdict()
	}
	j.Check(Every(code0, Equals(137)), "%s: exit code not 137 (the plain close did not wait for the SIGKILL) in %s runs",
		none, Count(code0, Not(Equals(137))))
	j.Check(Every(killed0, IsTrue), "%s: not ended by the engine's SIGKILL in %s runs", none, Count(killed0, Not(IsTrue)))
	j.Check(Every(forced0, IsFalse), "%s: forced_exit logged without a timeout in %s runs", none, Count(forced0, Not(IsFalse)))
	j.Check(Every(forcedT, IsTrue), "%s: no forced_exit logged in %s runs", timeout, Count(forcedT, Not(IsTrue)))
	in := Between(c3TeardownMs, c3TeardownMs+c3SlackMs)
	j.Check(Every(forcedMs, in), "%s: forced_exit outside %s after the signal in %s runs", timeout,
		MsRange(c3TeardownMs, c3TeardownMs+c3SlackMs), Count(forcedMs, Not(in)))
	j.Check(Every(selfT, IsTrue), "%s: did not end itself in %s runs", timeout, Count(selfT, Not(IsTrue)))
	forcedCode := func(x report.Value) bool { return !x.Null && x.V != 0 && x.V != 137 }
	j.Check(Every(codeT, forcedCode), "%s: exit code 0, 137 or none in %s runs", timeout, Count(codeT, Not(forcedCode)))
	return j.Verdict()
}

// C4's thresholds of fd growth per aborted request: pipe leaks about one
// socket per abort, pipeline none.
const c4PipeGrowth, c4PipelineGrowth = 0.5, 0.2

func ruleC4(res *report.Result) Verdict {
	const held, quick = "path=/proxy?ms=60000", "path=/proxy?ms=300"
	pipe, pipeline := "PROXY_IMPL=pipe,"+held, "PROXY_IMPL=pipeline,"+held
	j := NewJudge(res)
	growP := j.Vals(pipe, "fd_growth_per_abort")
	j.Vals(pipe, "fds_at_signal")
	forcedP := j.Vals(pipe, "forced_exit")
	codeP := j.Vals(pipe, "exit_code")
	j.Vals(pipe, "exit_after_ms")
	growL := j.Vals(pipeline, "fd_growth_per_abort")
	j.Vals(pipeline, "fds_at_signal")
	forcedL := j.Vals(pipeline, "forced_exit")
	codeL := j.Vals(pipeline, "exit_code")
	j.Vals(pipeline, "exit_after_ms")
	for _, impl := range []string{"PROXY_IMPL=pipe,", "PROXY_IMPL=pipeline,"} {
		j.Vals(impl+quick, "fd_growth_per_abort")
		j.Vals(impl+quick, "exit_code")
	}
	if !j.OK() {
		return j.Verdict()
	}
	j.Check(Every(growP, AtLeast(c4PipeGrowth)), "pipe: fd growth per abort < %s (or none) in %s runs",
		report.FormatNumber(report.KindRatio, c4PipeGrowth), Count(growP, Not(AtLeast(c4PipeGrowth))))
	j.Check(Every(forcedP, IsTrue), "pipe: exited on its clean shutdown (no forced_exit) in %s runs", Count(forcedP, Not(IsTrue)))
	j.Check(Every(codeP, Not(Equals(0))), "pipe: exit code 0 in %s runs", Count(codeP, Equals(0)))
	j.Check(Every(growL, Below(c4PipelineGrowth)), "pipeline: fd growth per abort ≥ %s (or none) in %s runs",
		report.FormatNumber(report.KindRatio, c4PipelineGrowth), Count(growL, NotBelow(c4PipelineGrowth)))
	j.Check(Every(forcedL, IsFalse), "pipeline: forced_exit in %s runs", Count(forcedL, Not(IsFalse)))
	j.Check(Every(codeL, Equals(0)), "pipeline: exit code not 0 in %s runs", Count(codeL, Not(Equals(0))))
	return j.Verdict()
}
