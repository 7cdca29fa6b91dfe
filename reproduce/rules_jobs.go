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
	j := newJudge(res)
	type cells struct{ code, final, abandoned, twice, missing []report.Value }
	get := func(label string) cells {
		c := cells{code: j.vals(label, "exit_code"), final: j.vals(label, "final_log"),
			abandoned: j.vals(label, "jobs_abandoned"), twice: j.vals(label, "jobs_steps_twice"),
			missing: j.vals(label, "jobs_steps_missing")}
		j.vals(label, "jobs_completed_handover")
		return c
	}
	p, i := get(plain), get(idem)
	if !j.ok() {
		return j.verdict("")
	}
	for _, v := range []struct {
		label string
		c     cells
	}{{plain, p}, {idem, i}} {
		j.check(every(v.c.code, equals(137)), "%s: exit code not 137 in %s runs", v.label, count(v.c.code, not(equals(137))))
		j.check(every(v.c.final, isFalse), "%s: the final log line was written in %s runs", v.label, count(v.c.final, not(isFalse)))
		j.check(every(v.c.abandoned, atLeast(1)), "%s: no job cut mid-run in %s runs", v.label, count(v.c.abandoned, not(atLeast(1))))
		j.check(every(v.c.missing, equals(0)), "%s: a completed job misses a step in %s runs", v.label, count(v.c.missing, not(equals(0))))
	}
	j.check(every(p.twice, atLeast(1)), "%s: no step applied twice in %s runs (did the rescue fire within the run?)",
		plain, count(p.twice, not(atLeast(1))))
	j.check(every(i.twice, equals(0)), "%s: a step applied twice in %s runs", idem, count(i.twice, not(equals(0))))
	return j.verdict("")
}

func ruleJ2(res *report.Result) Verdict {
	const full = "mode=full"
	j := newJudge(res)
	ins := j.vals(full, "jobs_inserted")
	once := j.vals(full, "jobs_completed_once")
	hand := j.vals(full, "jobs_completed_handover")
	running := j.vals(full, "jobs_running")
	waiting := j.vals(full, "jobs_waiting")
	twice := j.vals(full, "jobs_steps_twice")
	missing := j.vals(full, "jobs_steps_missing")
	j.vals(full, "job_handover_ms")
	code := j.vals(full, "exit_code")
	final := j.vals(full, "final_log")
	if !j.ok() {
		return j.verdict("")
	}
	lost := 0
	for k := range ins {
		if k >= len(once) || k >= len(hand) || ins[k].Null || once[k].Null || hand[k].Null || once[k].V+hand[k].V != ins[k].V {
			lost++
		}
	}
	j.check(lost == 0, "not every inserted job completed in %d of %d runs", lost, len(ins))
	j.check(every(running, equals(0)), "jobs left running in %s runs", count(running, not(equals(0))))
	j.check(every(waiting, equals(0)), "jobs left waiting in %s runs", count(waiting, not(equals(0))))
	j.check(every(hand, atLeast(1)), "no job completed after a hand-over in %s runs", count(hand, not(atLeast(1))))
	j.check(every(twice, equals(0)), "a step applied twice in %s runs", count(twice, not(equals(0))))
	j.check(every(missing, equals(0)), "a completed job misses a step in %s runs", count(missing, not(equals(0))))
	j.check(every(code, equals(0)), "exit code not 0 in %s runs", count(code, not(equals(0))))
	j.check(every(final, isTrue), "no final log line in %s runs", count(final, not(isTrue)))
	return j.verdict("")
}

func ruleJ3(res *report.Result) Verdict {
	const equal, less = "DRAIN_MS=10000", "DRAIN_MS=7000"
	j := newJudge(res)
	fitsE := j.vals(equal, "budget_fits")
	codeE := j.vals(equal, "exit_code")
	j.vals(equal, "exit_after_ms")
	finalE := j.vals(equal, "final_log")
	fitsL := j.vals(less, "budget_fits")
	codeL := j.vals(less, "exit_code")
	exitL := j.vals(less, "exit_after_ms")
	finalL := j.vals(less, "final_log")
	cutL := j.vals(less, "jobs_abandoned")
	if !j.ok() {
		return j.verdict("")
	}
	j.check(every(fitsE, isFalse), "%s: the audit says the budget fits in %s runs", equal, count(fitsE, not(isFalse)))
	j.check(every(codeE, equals(137)), "%s: exit code not 137 in %s runs", equal, count(codeE, not(equals(137))))
	j.check(every(finalE, isFalse), "%s: the final log line was written in %s runs", equal, count(finalE, not(isFalse)))
	j.check(every(fitsL, isTrue), "%s: the audit says the budget does not fit in %s runs", less, count(fitsL, not(isTrue)))
	j.check(every(codeL, func(x report.Value) bool { return !x.Null && x.V != 137 }),
		"%s: exit code 137 or none in %s runs", less, count(codeL, func(x report.Value) bool { return x.Null || x.V == 137 }))
	j.check(every(exitL, below(jGraceMs)), "%s: not out within the %d s grace period in %s runs", less, jGraceMs/1000,
		count(exitL, notBelow(jGraceMs)))
	j.check(every(finalL, isTrue), "%s: no final log line in %s runs", less, count(finalL, not(isTrue)))
	j.check(every(cutL, atLeast(1)), "%s: no job cut in %s runs", less, count(cutL, not(atLeast(1))))
	return j.verdict("")
}

func ruleJ4(res *report.Result) Verdict {
	const last, first = "POOL_CLOSE=last", "POOL_CLOSE=first"
	j := newJudge(res)
	type cells struct{ failed, ins, once, hand []report.Value }
	get := func(label string) cells {
		c := cells{failed: j.vals(label, "dropped_inflight"), ins: j.vals(label, "jobs_inserted"),
			once: j.vals(label, "jobs_completed_once"), hand: j.vals(label, "jobs_completed_handover")}
		j.vals(label, "exit_code")
		return c
	}
	l, f := get(last), get(first)
	if !j.ok() {
		return j.verdict("")
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
	j.check(every(l.failed, equals(0)), "%s: in-flight requests failed in %s runs", last, count(l.failed, not(equals(0))))
	if all, n := completedAll(l); all != n {
		j.check(false, "%s: not every job completed in %d of %d runs", last, n-all, n)
	}
	j.check(every(f.failed, atLeast(1)), "%s: no in-flight request failed in %s runs", first, count(f.failed, not(atLeast(1))))
	if all, n := completedAll(f); all != 0 {
		j.check(false, "%s: every job completed in %d of %d runs", first, all, n)
	}
	return j.verdict("")
}

func ruleJ5(res *report.Result) Verdict {
	const ignore, restart = "REPEAT_SIGNAL=ignore", "REPEAT_SIGNAL=restart"
	j := newJudge(res)
	codeI := j.vals(ignore, "exit_code")
	exitI := j.vals(ignore, "exit_after_ms")
	finalI := j.vals(ignore, "final_log")
	codeR := j.vals(restart, "exit_code")
	j.vals(restart, "exit_after_ms")
	finalR := j.vals(restart, "final_log")
	if !j.ok() {
		return j.verdict("")
	}
	j.check(every(codeI, func(x report.Value) bool { return !x.Null && x.V != 137 }),
		"%s: exit code 137 or none in %s runs", ignore, count(codeI, func(x report.Value) bool { return x.Null || x.V == 137 }))
	j.check(every(exitI, below(jGraceMs)), "%s: not out within the %d s grace period in %s runs", ignore, jGraceMs/1000,
		count(exitI, notBelow(jGraceMs)))
	j.check(every(finalI, isTrue), "%s: no final log line in %s runs", ignore, count(finalI, not(isTrue)))
	j.check(every(codeR, equals(137)), "%s: exit code not 137 in %s runs", restart, count(codeR, not(equals(137))))
	j.check(every(finalR, isFalse), "%s: the final log line was written in %s runs", restart, count(finalR, not(isFalse)))
	return j.verdict("")
}
