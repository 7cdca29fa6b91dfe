package reproduce

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs"
	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs/jobsmetrics"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// jobsSet sets job metrics on a synthetic run (a jobs run: job metrics
// present).
func jobsSet(f func(j *jobsmetrics.Metrics)) set {
	return func(m *report.Metrics) {
		if queuejobs.Of(m) == nil {
			m.SetPart(queuejobs.Need, &jobsmetrics.Metrics{})
		}
		f(queuejobs.Of(m))
	}
}

// ledger sets the class counts: completed once, after a hand-over,
// running; inserted is their sum.
func ledger(once, hand, running int) set {
	return jobsSet(func(j *jobsmetrics.Metrics) {
		j.JobsCompletedOnce, j.JobsCompletedHandover, j.JobsRunning = once, hand, running
		j.JobsInserted = once + hand + running
	})
}
func twice(n int) set      { return jobsSet(func(j *jobsmetrics.Metrics) { j.JobsStepsTwice = n }) }
func missing(n int) set    { return jobsSet(func(j *jobsmetrics.Metrics) { j.JobsStepsMissing = n }) }
func jobsCutOff(n int) set { return jobsSet(func(j *jobsmetrics.Metrics) { j.JobsAbandoned = n }) }
func finalLog(b bool) set  { return jobsSet(func(j *jobsmetrics.Metrics) { j.FinalLog = b }) }
func fits(b bool) set      { return jobsSet(func(j *jobsmetrics.Metrics) { j.BudgetFits = bp(b) }) }
func handover(ms float64) set {
	return jobsSet(func(j *jobsmetrics.Metrics) { j.JobHandoverMs = fp(ms) })
}

// TestJobsRules judges synthetic results shaped like the runs measured on
// this machine, and a failing case per rule.
func TestJobsRules(t *testing.T) {
	killed := []set{exitCode(137), exitAfter(4030), finalLog(false), jobsCutOff(2), missing(0)}
	retry := func(plain, idem []report.Run) *report.Result {
		return result("job-retry", "go", v("idempotent=false", plain), v("idempotent=true", idem))
	}
	plainOK := runs(3, append(killed, ledger(2, 2, 0), twice(2))...)
	idemOK := runs(3, append(killed, ledger(2, 2, 0), twice(0))...)
	modes := func(full []report.Run) *report.Result {
		return result("job-modes", "go", v("mode=none", runs(3, ledger(2, 0, 2))), v("mode=close", runs(3, ledger(2, 0, 2))),
			v("mode=full", full))
	}
	fullOK := []set{ledger(2, 2, 0), twice(0), missing(0), handover(9000), exitCode(0), exitAfter(3900), finalLog(true)}
	budget := func(equal, less []report.Run) *report.Result {
		return result("job-budget", "go", v("DRAIN_MS=10000", equal), v("DRAIN_MS=7000", less))
	}
	equalOK := runs(3, exitCode(137), exitAfter(10040), finalLog(false), fits(false))
	lessOK := runs(3, exitCode(1), exitAfter(7020), finalLog(true), fits(true), jobsCutOff(2))
	order := func(last, first []report.Run) *report.Result {
		return result("job-pool-order", "go", v("POOL_CLOSE=last", last), v("POOL_CLOSE=first", first))
	}
	lastOK := runs(3, dropped(0), ledger(2, 0, 0), exitCode(0))
	firstOK := runs(3, dropped(10), ledger(0, 0, 2), exitCode(0))
	second := func(ignore, restart []report.Run) *report.Result {
		return result("job-second-signal", "go", v("REPEAT_SIGNAL=ignore", ignore), v("REPEAT_SIGNAL=restart", restart))
	}
	ignoreOK := runs(3, exitCode(1), exitAfter(7020), finalLog(true))
	restartOK := runs(3, exitCode(137), exitAfter(10040), finalLog(false))
	cases := []ruleCase{
		{name: "killed, retried twice", claim: "J1", want: Reproduced, cell: "jobs_steps_twice 2", res: retry(plainOK, idemOK)},
		{name: "no rescue within the run", claim: "J1", want: Differs, why: "idempotent=false: no step applied twice in 3/3",
			res: retry(runs(3, append(killed, ledger(0, 0, 4), twice(0))...), idemOK)},
		{name: "idempotent applied twice", claim: "J1", want: Differs, why: "idempotent=true: a step applied twice in 3/3",
			res: retry(plainOK, runs(3, append(killed, ledger(2, 2, 0), twice(1))...))},
		{name: "exits before the kill", claim: "J1", want: Differs, why: "idempotent=false: exit code not 137 in 3/3",
			res: retry(runs(3, exitCode(0), exitAfter(3000), finalLog(true), jobsCutOff(0), ledger(4, 0, 0), twice(0), missing(0)), idemOK)},
		{name: "cooperative", claim: "J2", want: Reproduced, cell: "job_handover_ms 9000", res: modes(runs(3, fullOK...))},
		{name: "a job lost", claim: "J2", want: Differs, why: "not every inserted job completed in 1 of 3 runs",
			res: modes(append(runs(2, fullOK...), mkRun(append(fullOK, ledger(2, 1, 1))...)))},
		{name: "no hand-over", claim: "J2", want: Differs, why: "no job completed after a hand-over in 3/3",
			res: modes(runs(3, append(fullOK, ledger(4, 0, 0))...))},
		{name: "a missing step", claim: "J2", want: Differs, why: "a completed job misses a step in 3/3",
			res: modes(runs(3, append(fullOK, missing(1))...))},
		{name: "full missing", claim: "J2", want: NotRun, why: "variant mode=full",
			res: result("job-modes", "go", v("mode=none", runs(3, ledger(2, 0, 2))))},
		{name: "one budget", claim: "J3", want: Reproduced, cell: "budget_fits", res: budget(equalOK, lessOK)},
		{name: "the app beats the kill", claim: "J3", want: Differs, why: "DRAIN_MS=10000: exit code not 137 in 3/3",
			res: budget(runs(3, exitCode(1), exitAfter(10017), finalLog(true), fits(false)), lessOK)},
		{name: "killed with room to spare", claim: "J3", want: Differs, why: "DRAIN_MS=7000: exit code 137 or none in 3/3",
			res: budget(equalOK, runs(3, exitCode(137), exitAfter(10040), finalLog(false), fits(true), jobsCutOff(2)))},
		{name: "pool order", claim: "J4", want: Reproduced, cell: "dropped_inflight 0", res: order(lastOK, firstOK)},
		{name: "first harms nothing", claim: "J4", want: Differs, why: "POOL_CLOSE=first: no in-flight request failed in 3/3",
			res: order(lastOK, runs(3, dropped(0), ledger(2, 0, 0), exitCode(0)))},
		{name: "first completes the jobs", claim: "J4", want: Differs, why: "POOL_CLOSE=first: every job completed in 3 of 3",
			res: order(lastOK, runs(3, dropped(10), ledger(2, 0, 0), exitCode(0)))},
		{name: "last drops in flight", claim: "J4", want: Differs, why: "POOL_CLOSE=last: in-flight requests failed in 3/3",
			res: order(runs(3, dropped(3), ledger(2, 0, 0), exitCode(0)), firstOK)},
		{name: "second signal", claim: "J5", want: Reproduced, cell: "final_log", res: second(ignoreOK, restartOK)},
		{name: "restart survives", claim: "J5", want: Differs, why: "REPEAT_SIGNAL=restart: exit code not 137 in 3/3",
			res: second(ignoreOK, ignoreOK)},
		{name: "ignore killed", claim: "J5", want: Differs, why: "REPEAT_SIGNAL=ignore: exit code 137 or none in 3/3",
			res: second(restartOK, restartOK)},
	}
	runRuleCases(t, cases)
}

// J1–J5 run the Go target's queue worker: planned on go only, not
// applicable on node, with variant labels the catalog scenarios expand to.
func TestJobsClaimsGoOnly(t *testing.T) {
	claims, err := Select([]string{"J1", "J2", "J3", "J4", "J5"})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := Plan(claims, []string{"node", "go"}, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 5 {
		t.Fatalf("%d jobs, want 5 (one per scenario, go only): %+v", len(jobs), jobs)
	}
	for _, j := range jobs {
		if j.Sub != "go" || strings.Join(j.Runtimes, ",") != "go" || j.Skip != "" || j.Total() <= 0 {
			t.Errorf("%s: sub %q runtimes %v skip %q estimate %s", j.Scenario, j.Sub, j.Runtimes, j.Skip, j.Total())
		}
		if !strings.Contains(j.NotApplicable["node"], "Go only") {
			t.Errorf("%s: node not applicable %q", j.Scenario, j.NotApplicable["node"])
		}
	}
	for _, c := range claims {
		sc, err := scenarios.Find(c.Scenario)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		vs, err := sc.Expand([]string{"runs=1", runtimeKey + "=go"})
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		for _, want := range c.Variants {
			found := false
			for _, v := range vs {
				found = found || matchLabel(v.Label, want)
			}
			if !found {
				t.Errorf("%s: variant %q not among %s's variants", c.ID, want, c.Scenario)
			}
		}
	}
}
