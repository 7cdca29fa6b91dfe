package queuejobs

import (
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
)

// The background-job rules (J1–J5), one per claim, written as reproduce's
// P rules are (reproduce.Judge): cells first, checks only when every
// input was present. Their scenarios are Go only (the queue worker is the
// Go target's).

// jGraceMs is the grace period of job-budget and job-second-signal
// (docker stop -t 10).
const jGraceMs = 10000

func ruleJ1(res *report.Result) reproduce.Verdict {
	const plain, idem = "idempotent=false", "idempotent=true"
	j := reproduce.NewJudge(res)
	type cells struct{ code, final, abandoned, twice, missing []report.Value }
	get := func(label string) cells {
		c := cells{code: j.Vals(label, "exit_code"), final: j.Vals(label, "final_log"),
			abandoned: j.Vals(label, "jobs_abandoned"), twice: j.Vals(label, "jobs_steps_twice"),
			missing: j.Vals(label, "jobs_steps_missing")}
		j.Vals(label, "jobs_completed_handover")
		return c
	}
	p, i := get(plain), get(idem)
	if !j.OK() {
		return j.Verdict()
	}
	for _, v := range []struct {
		label string
		c     cells
	}{{plain, p}, {idem, i}} {
		j.Check(reproduce.Every(v.c.code, reproduce.Equals(137)), "%s: exit code not 137 in %s runs", v.label, reproduce.Count(v.c.code, reproduce.Not(reproduce.Equals(137))))
		j.Check(reproduce.Every(v.c.final, reproduce.IsFalse), "%s: the final log line was written in %s runs", v.label, reproduce.Count(v.c.final, reproduce.Not(reproduce.IsFalse)))
		j.Check(reproduce.Every(v.c.abandoned, reproduce.AtLeast(1)), "%s: no job cut mid-run in %s runs", v.label, reproduce.Count(v.c.abandoned, reproduce.Not(reproduce.AtLeast(1))))
		j.Check(reproduce.Every(v.c.missing, reproduce.Equals(0)), "%s: a completed job misses a step in %s runs", v.label, reproduce.Count(v.c.missing, reproduce.Not(reproduce.Equals(0))))
	}
	j.Check(reproduce.Every(p.twice, reproduce.AtLeast(1)), "%s: no step applied twice in %s runs (did the rescue fire within the run?)",
		plain, reproduce.Count(p.twice, reproduce.Not(reproduce.AtLeast(1))))
	j.Check(reproduce.Every(i.twice, reproduce.Equals(0)), "%s: a step applied twice in %s runs", idem, reproduce.Count(i.twice, reproduce.Not(reproduce.Equals(0))))
	return j.Verdict()
}

func ruleJ2(res *report.Result) reproduce.Verdict {
	const full = "mode=full"
	j := reproduce.NewJudge(res)
	ins := j.Vals(full, "jobs_inserted")
	once := j.Vals(full, "jobs_completed_once")
	hand := j.Vals(full, "jobs_completed_handover")
	running := j.Vals(full, "jobs_running")
	waiting := j.Vals(full, "jobs_waiting")
	twice := j.Vals(full, "jobs_steps_twice")
	missing := j.Vals(full, "jobs_steps_missing")
	j.Vals(full, "job_handover_ms")
	code := j.Vals(full, "exit_code")
	final := j.Vals(full, "final_log")
	if !j.OK() {
		return j.Verdict()
	}
	lost := 0
	for k := range ins {
		if k >= len(once) || k >= len(hand) || ins[k].Null || once[k].Null || hand[k].Null || once[k].V+hand[k].V != ins[k].V {
			lost++
		}
	}
	j.Check(lost == 0, "not every inserted job completed in %d of %d runs", lost, len(ins))
	j.Check(reproduce.Every(running, reproduce.Equals(0)), "jobs left running in %s runs", reproduce.Count(running, reproduce.Not(reproduce.Equals(0))))
	j.Check(reproduce.Every(waiting, reproduce.Equals(0)), "jobs left waiting in %s runs", reproduce.Count(waiting, reproduce.Not(reproduce.Equals(0))))
	j.Check(reproduce.Every(hand, reproduce.AtLeast(1)), "no job completed after a hand-over in %s runs", reproduce.Count(hand, reproduce.Not(reproduce.AtLeast(1))))
	j.Check(reproduce.Every(twice, reproduce.Equals(0)), "a step applied twice in %s runs", reproduce.Count(twice, reproduce.Not(reproduce.Equals(0))))
	j.Check(reproduce.Every(missing, reproduce.Equals(0)), "a completed job misses a step in %s runs", reproduce.Count(missing, reproduce.Not(reproduce.Equals(0))))
	j.Check(reproduce.Every(code, reproduce.Equals(0)), "exit code not 0 in %s runs", reproduce.Count(code, reproduce.Not(reproduce.Equals(0))))
	j.Check(reproduce.Every(final, reproduce.IsTrue), "no final log line in %s runs", reproduce.Count(final, reproduce.Not(reproduce.IsTrue)))
	return j.Verdict()
}

func ruleJ3(res *report.Result) reproduce.Verdict {
	const equal, less = "DRAIN_MS=10000", "DRAIN_MS=7000"
	j := reproduce.NewJudge(res)
	fitsE := j.Vals(equal, "budget_fits")
	codeE := j.Vals(equal, "exit_code")
	j.Vals(equal, "exit_after_ms")
	finalE := j.Vals(equal, "final_log")
	fitsL := j.Vals(less, "budget_fits")
	codeL := j.Vals(less, "exit_code")
	exitL := j.Vals(less, "exit_after_ms")
	finalL := j.Vals(less, "final_log")
	cutL := j.Vals(less, "jobs_abandoned")
	if !j.OK() {
		return j.Verdict()
	}
	j.Check(reproduce.Every(fitsE, reproduce.IsFalse), "%s: the audit says the budget fits in %s runs", equal, reproduce.Count(fitsE, reproduce.Not(reproduce.IsFalse)))
	j.Check(reproduce.Every(codeE, reproduce.Equals(137)), "%s: exit code not 137 in %s runs", equal, reproduce.Count(codeE, reproduce.Not(reproduce.Equals(137))))
	j.Check(reproduce.Every(finalE, reproduce.IsFalse), "%s: the final log line was written in %s runs", equal, reproduce.Count(finalE, reproduce.Not(reproduce.IsFalse)))
	j.Check(reproduce.Every(fitsL, reproduce.IsTrue), "%s: the audit says the budget does not fit in %s runs", less, reproduce.Count(fitsL, reproduce.Not(reproduce.IsTrue)))
	j.Check(reproduce.Every(codeL, func(x report.Value) bool { return !x.Null && x.V != 137 }),
		"%s: exit code 137 or none in %s runs", less, reproduce.Count(codeL, func(x report.Value) bool { return x.Null || x.V == 137 }))
	j.Check(reproduce.Every(exitL, reproduce.Below(jGraceMs)), "%s: not out within the %d s grace period in %s runs", less, jGraceMs/1000,
		reproduce.Count(exitL, reproduce.NotBelow(jGraceMs)))
	j.Check(reproduce.Every(finalL, reproduce.IsTrue), "%s: no final log line in %s runs", less, reproduce.Count(finalL, reproduce.Not(reproduce.IsTrue)))
	j.Check(reproduce.Every(cutL, reproduce.AtLeast(1)), "%s: no job cut in %s runs", less, reproduce.Count(cutL, reproduce.Not(reproduce.AtLeast(1))))
	return j.Verdict()
}

func ruleJ4(res *report.Result) reproduce.Verdict {
	const last, first = "POOL_CLOSE=last", "POOL_CLOSE=first"
	j := reproduce.NewJudge(res)
	type cells struct{ failed, ins, once, hand []report.Value }
	get := func(label string) cells {
		c := cells{failed: j.Vals(label, "dropped_inflight"), ins: j.Vals(label, "jobs_inserted"),
			once: j.Vals(label, "jobs_completed_once"), hand: j.Vals(label, "jobs_completed_handover")}
		j.Vals(label, "exit_code")
		return c
	}
	l, f := get(last), get(first)
	if !j.OK() {
		return j.Verdict()
	}
	// completedAll counts the runs whose jobs all completed.
	completedAll := func(c cells) (all, n int) {
		for k := range c.ins {
			n++
			if k < len(c.once) && k < len(c.hand) && !c.ins[k].Null && !c.once[k].Null && !c.hand[k].Null &&
				c.once[k].V+c.hand[k].V == c.ins[k].V {
				all++
			}
		}
		return all, n
	}
	j.Check(reproduce.Every(l.failed, reproduce.Equals(0)), "%s: in-flight requests failed in %s runs", last, reproduce.Count(l.failed, reproduce.Not(reproduce.Equals(0))))
	if all, n := completedAll(l); all != n {
		j.Check(false, "%s: not every job completed in %d of %d runs", last, n-all, n)
	}
	j.Check(reproduce.Every(f.failed, reproduce.AtLeast(1)), "%s: no in-flight request failed in %s runs", first, reproduce.Count(f.failed, reproduce.Not(reproduce.AtLeast(1))))
	if all, n := completedAll(f); all != 0 {
		j.Check(false, "%s: every job completed in %d of %d runs", first, all, n)
	}
	return j.Verdict()
}

func ruleJ5(res *report.Result) reproduce.Verdict {
	const ignore, restart = "REPEAT_SIGNAL=ignore", "REPEAT_SIGNAL=restart"
	j := reproduce.NewJudge(res)
	codeI := j.Vals(ignore, "exit_code")
	exitI := j.Vals(ignore, "exit_after_ms")
	finalI := j.Vals(ignore, "final_log")
	codeR := j.Vals(restart, "exit_code")
	j.Vals(restart, "exit_after_ms")
	finalR := j.Vals(restart, "final_log")
	if !j.OK() {
		return j.Verdict()
	}
	j.Check(reproduce.Every(codeI, func(x report.Value) bool { return !x.Null && x.V != 137 }),
		"%s: exit code 137 or none in %s runs", ignore, reproduce.Count(codeI, func(x report.Value) bool { return x.Null || x.V == 137 }))
	j.Check(reproduce.Every(exitI, reproduce.Below(jGraceMs)), "%s: not out within the %d s grace period in %s runs", ignore, jGraceMs/1000,
		reproduce.Count(exitI, reproduce.NotBelow(jGraceMs)))
	j.Check(reproduce.Every(finalI, reproduce.IsTrue), "%s: no final log line in %s runs", ignore, reproduce.Count(finalI, reproduce.Not(reproduce.IsTrue)))
	j.Check(reproduce.Every(codeR, reproduce.Equals(137)), "%s: exit code not 137 in %s runs", restart, reproduce.Count(codeR, reproduce.Not(reproduce.Equals(137))))
	j.Check(reproduce.Every(finalR, reproduce.IsFalse), "%s: the final log line was written in %s runs", restart, reproduce.Count(finalR, reproduce.Not(reproduce.IsFalse)))
	return j.Verdict()
}
