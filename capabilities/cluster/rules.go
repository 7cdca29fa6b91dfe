package cluster

import (
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
)

// The cluster rules (C1–C4), one per claim, written as reproduce's P
// rules are (reproduce.Judge): cells first, checks only when every input
// was present. Their scenarios are Node only.

func ruleC1(res *report.Result) reproduce.Verdict {
	const short, long = "duration=5s", "duration=14s"
	j := reproduce.NewJudge(res)
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
		j.Check(reproduce.Every(forks, reproduce.AtLeast(1)), "%s: no fork after the signal in %s runs", short, reproduce.Count(forks, reproduce.Not(reproduce.AtLeast(1))))
		j.Check(reproduce.Every(codeS, reproduce.Equals(137)), "%s: exit code not 137 in %s runs", short, reproduce.Count(codeS, reproduce.Not(reproduce.Equals(137))))
		j.Check(reproduce.Every(killedS, reproduce.IsTrue), "%s: not ended by the engine's SIGKILL in %s runs", short, reproduce.Count(killedS, reproduce.Not(reproduce.IsTrue)))
		j.Check(reproduce.Every(codeL, reproduce.Equals(137)), "%s: exit code not 137 in %s runs", long, reproduce.Count(codeL, reproduce.Not(reproduce.Equals(137))))
		j.Check(reproduce.Every(killedL, reproduce.IsTrue), "%s: not ended by the engine's SIGKILL in %s runs", long, reproduce.Count(killedL, reproduce.Not(reproduce.IsTrue)))
		j.Check(reproduce.Every(severed, reproduce.AtLeast(1)), "%s: no request severed at the kill in %s runs", long, reproduce.Count(severed, reproduce.Not(reproduce.AtLeast(1))))
	}
	return j.Verdict()
}

// c2ResurrectionMs bounds "within milliseconds": the crashed worker's
// replacement is forked less than this after its exit.
const c2ResurrectionMs = 100

// c2GraceMs is cluster-gated's docker stop grace period (-t 10).
const c2GraceMs = 10000

func ruleC2(res *report.Result) reproduce.Verdict {
	j := reproduce.NewJudge(res)
	crashes := j.Vals("default", "crashes")
	sigkill := j.Vals("default", "worker_exits_sigkill")
	resurrect := j.Vals("default", "resurrection_ms")
	forks := j.Vals("default", "forks_after_signal")
	code := j.Vals("default", "exit_code")
	exit := j.Vals("default", "exit_after_ms")
	self := j.Vals("default", "ended_by_self")
	if j.OK() {
		j.Check(reproduce.Every(crashes, reproduce.AtLeast(1)), "no crash before the signal in %s runs", reproduce.Count(crashes, reproduce.Not(reproduce.AtLeast(1))))
		j.Check(reproduce.Every(sigkill, reproduce.AtLeast(1)), "no worker killed by SIGKILL in %s runs", reproduce.Count(sigkill, reproduce.Not(reproduce.AtLeast(1))))
		j.Check(reproduce.Every(resurrect, reproduce.Below(c2ResurrectionMs)), "crashed worker not re-forked within %d ms (or never) in %s runs",
			c2ResurrectionMs, reproduce.Count(resurrect, reproduce.NotBelow(c2ResurrectionMs)))
		j.Check(reproduce.Every(forks, reproduce.Equals(0)), "workers forked after the signal in %s runs", reproduce.Count(forks, reproduce.Not(reproduce.Equals(0))))
		j.Check(reproduce.Every(code, reproduce.Equals(0)), "exit code not 0 in %s runs", reproduce.Count(code, reproduce.Not(reproduce.Equals(0))))
		j.Check(reproduce.Every(self, reproduce.IsTrue), "did not end itself in %s runs", reproduce.Count(self, reproduce.Not(reproduce.IsTrue)))
		j.Check(reproduce.Every(exit, reproduce.Below(c2GraceMs)), "did not exit within the %d s grace period in %s runs", c2GraceMs/1000, reproduce.Count(exit, reproduce.NotBelow(c2GraceMs)))
	}
	return j.Verdict()
}

// c3TeardownMs is cluster-teardown's timeout variant; the forced exit must
// come within c3SlackMs after it.
const c3TeardownMs, c3SlackMs = 4000, 1000

func ruleC3(res *report.Result) reproduce.Verdict {
	const none, timeout = "TEARDOWN_MS=0", "TEARDOWN_MS=4000"
	j := reproduce.NewJudge(res)
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
	j.Check(reproduce.Every(code0, reproduce.Equals(137)), "%s: exit code not 137 (the plain close did not wait for the SIGKILL) in %s runs",
		none, reproduce.Count(code0, reproduce.Not(reproduce.Equals(137))))
	j.Check(reproduce.Every(killed0, reproduce.IsTrue), "%s: not ended by the engine's SIGKILL in %s runs", none, reproduce.Count(killed0, reproduce.Not(reproduce.IsTrue)))
	j.Check(reproduce.Every(forced0, reproduce.IsFalse), "%s: forced_exit logged without a timeout in %s runs", none, reproduce.Count(forced0, reproduce.Not(reproduce.IsFalse)))
	j.Check(reproduce.Every(forcedT, reproduce.IsTrue), "%s: no forced_exit logged in %s runs", timeout, reproduce.Count(forcedT, reproduce.Not(reproduce.IsTrue)))
	in := reproduce.Between(c3TeardownMs, c3TeardownMs+c3SlackMs)
	j.Check(reproduce.Every(forcedMs, in), "%s: forced_exit outside %s after the signal in %s runs", timeout,
		reproduce.MsRange(c3TeardownMs, c3TeardownMs+c3SlackMs), reproduce.Count(forcedMs, reproduce.Not(in)))
	j.Check(reproduce.Every(selfT, reproduce.IsTrue), "%s: did not end itself in %s runs", timeout, reproduce.Count(selfT, reproduce.Not(reproduce.IsTrue)))
	forcedCode := func(x report.Value) bool { return !x.Null && x.V != 0 && x.V != 137 }
	j.Check(reproduce.Every(codeT, forcedCode), "%s: exit code 0, 137 or none in %s runs", timeout, reproduce.Count(codeT, reproduce.Not(forcedCode)))
	return j.Verdict()
}

// C4's thresholds of fd growth per aborted request: pipe leaks about one
// socket per abort, pipeline none.
const c4PipeGrowth, c4PipelineGrowth = 0.5, 0.2

func ruleC4(res *report.Result) reproduce.Verdict {
	const held, quick = "path=/proxy?ms=60000", "path=/proxy?ms=300"
	pipe, pipeline := "PROXY_IMPL=pipe,"+held, "PROXY_IMPL=pipeline,"+held
	j := reproduce.NewJudge(res)
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
	j.Check(reproduce.Every(growP, reproduce.AtLeast(c4PipeGrowth)), "pipe: fd growth per abort < %s (or none) in %s runs",
		report.FormatNumber(report.KindRatio, c4PipeGrowth), reproduce.Count(growP, reproduce.Not(reproduce.AtLeast(c4PipeGrowth))))
	j.Check(reproduce.Every(forcedP, reproduce.IsTrue), "pipe: exited on its clean shutdown (no forced_exit) in %s runs", reproduce.Count(forcedP, reproduce.Not(reproduce.IsTrue)))
	j.Check(reproduce.Every(codeP, reproduce.Not(reproduce.Equals(0))), "pipe: exit code 0 in %s runs", reproduce.Count(codeP, reproduce.Equals(0)))
	j.Check(reproduce.Every(growL, reproduce.Below(c4PipelineGrowth)), "pipeline: fd growth per abort ≥ %s (or none) in %s runs",
		report.FormatNumber(report.KindRatio, c4PipelineGrowth), reproduce.Count(growL, reproduce.NotBelow(c4PipelineGrowth)))
	j.Check(reproduce.Every(forcedL, reproduce.IsFalse), "pipeline: forced_exit in %s runs", reproduce.Count(forcedL, reproduce.Not(reproduce.IsFalse)))
	j.Check(reproduce.Every(codeL, reproduce.Equals(0)), "pipeline: exit code not 0 in %s runs", reproduce.Count(codeL, reproduce.Not(reproduce.Equals(0))))
	return j.Verdict()
}
