package reproduce

import "github.com/shutdownlab/shutdownlab/report"

// The background-job rules (J1–J5), one per claim, as rules.go: cells
// first, checks only when every input was present. Their scenarios are Go
// only (the queue worker is the Go target's).

// jGraceMs is the grace period of job-budget and job-second-signal
// (docker stop -t 10).
const jGraceMs = 10000

func ruleJ1(res *report.Result) Verdict {
	const plain, idem = "idempotent=false", "idempotent=true"
	j := NewJudge(res)
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
		j.Check(Every(v.c.code, Equals(137)), "%s: exit code not 137 in %s runs", v.label, Count(v.c.code, Not(Equals(137))))
		j.Check(Every(v.c.final, IsFalse), "%s: the final log line was written in %s runs", v.label, Count(v.c.final, Not(IsFalse)))
		j.Check(Every(v.c.abandoned, AtLeast(1)), "%s: no job cut mid-run in %s runs", v.label, Count(v.c.abandoned, Not(AtLeast(1))))
		j.Check(Every(v.c.missing, Equals(0)), "%s: a completed job misses a step in %s runs", v.label, Count(v.c.missing, Not(Equals(0))))
	}
	j.Check(Every(p.twice, AtLeast(1)), "%s: no step applied twice in %s runs (did the rescue fire within the run?)",
		plain, Count(p.twice, Not(AtLeast(1))))
	j.Check(Every(i.twice, Equals(0)), "%s: a step applied twice in %s runs", idem, Count(i.twice, Not(Equals(0))))
	return j.Verdict()
}

func ruleJ2(res *report.Result) Verdict {
	const full = "mode=full"
	j := NewJudge(res)
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
	j.Check(Every(running, Equals(0)), "jobs left running in %s runs", Count(running, Not(Equals(0))))
	j.Check(Every(waiting, Equals(0)), "jobs left waiting in %s runs", Count(waiting, Not(Equals(0))))
	j.Check(Every(hand, AtLeast(1)), "no job completed after a hand-over in %s runs", Count(hand, Not(AtLeast(1))))
	j.Check(Every(twice, Equals(0)), "a step applied twice in %s runs", Count(twice, Not(Equals(0))))
	j.Check(Every(missing, Equals(0)), "a completed job misses a step in %s runs", Count(missing, Not(Equals(0))))
	j.Check(Every(code, Equals(0)), "exit code not 0 in %s runs", Count(code, Not(Equals(0))))
	j.Check(Every(final, IsTrue), "no final log line in %s runs", Count(final, Not(IsTrue)))
	return j.Verdict()
}

func ruleJ3(res *report.Result) Verdict {
	const equal, less = "DRAIN_MS=10000", "DRAIN_MS=7000"
	j := NewJudge(res)
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
	j.Check(Every(fitsE, IsFalse), "%s: the audit says the budget fits in %s runs", equal, Count(fitsE, Not(IsFalse)))
	j.Check(Every(codeE, Equals(137)), "%s: exit code not 137 in %s runs", equal, Count(codeE, Not(Equals(137))))
	j.Check(Every(finalE, IsFalse), "%s: the final log line was written in %s runs", equal, Count(finalE, Not(IsFalse)))
	j.Check(Every(fitsL, IsTrue), "%s: the audit says the budget does not fit in %s runs", less, Count(fitsL, Not(IsTrue)))
	j.Check(Every(codeL, func(x report.Value) bool { return !x.Null && x.V != 137 }),
		"%s: exit code 137 or none in %s runs", less, Count(codeL, func(x report.Value) bool { return x.Null || x.V == 137 }))
	j.Check(Every(exitL, Below(jGraceMs)), "%s: not out within the %d s grace period in %s runs", less, jGraceMs/1000,
		Count(exitL, NotBelow(jGraceMs)))
	j.Check(Every(finalL, IsTrue), "%s: no final log line in %s runs", less, Count(finalL, Not(IsTrue)))
	j.Check(Every(cutL, AtLeast(1)), "%s: no job cut in %s runs", less, Count(cutL, Not(AtLeast(1))))
	return j.Verdict()
}

func ruleJ4(res *report.Result) Verdict {
	const last, first = "POOL_CLOSE=last", "POOL_CLOSE=first"
	j := NewJudge(res)
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
	j.Check(Every(l.failed, Equals(0)), "%s: in-flight requests failed in %s runs", last, Count(l.failed, Not(Equals(0))))
	if all, n := completedAll(l); all != n {
		j.Check(false, "%s: not every job completed in %d of %d runs", last, n-all, n)
	}
	j.Check(Every(f.failed, AtLeast(1)), "%s: no in-flight request failed in %s runs", first, Count(f.failed, Not(AtLeast(1))))
	if all, n := completedAll(f); all != 0 {
		j.Check(false, "%s: every job completed in %d of %d runs", first, all, n)
	}
	return j.Verdict()
}

func ruleJ5(res *report.Result) Verdict {
	const ignore, restart = "REPEAT_SIGNAL=ignore", "REPEAT_SIGNAL=restart"
	j := NewJudge(res)
	codeI := j.Vals(ignore, "exit_code")
	exitI := j.Vals(ignore, "exit_after_ms")
	finalI := j.Vals(ignore, "final_log")
	codeR := j.Vals(restart, "exit_code")
	j.Vals(restart, "exit_after_ms")
	finalR := j.Vals(restart, "final_log")
	if !j.OK() {
		return j.Verdict()
	}
	j.Check(Every(codeI, func(x report.Value) bool { return !x.Null && x.V != 137 }),
		"%s: exit code 137 or none in %s runs", ignore, Count(codeI, func(x report.Value) bool { return x.Null || x.V == 137 }))
	j.Check(Every(exitI, Below(jGraceMs)), "%s: not out within the %d s grace period in %s runs", ignore, jGraceMs/1000,
		Count(exitI, NotBelow(jGraceMs)))
	j.Check(Every(finalI, IsTrue), "%s: no final log line in %s runs", ignore, Count(finalI, Not(IsTrue)))
	j.Check(Every(codeR, Equals(137)), "%s: exit code not 137 in %s runs", restart, Count(codeR, Not(Equals(137))))
	j.Check(Every(finalR, IsFalse), "%s: the final log line was written in %s runs", restart, Count(finalR, Not(IsFalse)))
	return j.Verdict()
}
