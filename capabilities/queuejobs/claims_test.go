package queuejobs

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/queuejobs/jobsmetrics"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
	"github.com/shutdownlab/shutdownlab/reproduce/reprotest"
)

// jobsSet sets job metrics on a synthetic run (a jobs run: job metrics
// present).
func jobsSet(f func(j *jobsmetrics.Metrics)) reprotest.Set {
	return func(m *report.Metrics) {
		if Of(m) == nil {
			m.SetPart(Need, &jobsmetrics.Metrics{})
		}
		f(Of(m))
	}
}

// ledger sets the class counts: completed once, after a hand-over,
// running; inserted is their sum.
func ledger(once, hand, running int) reprotest.Set {
	return jobsSet(func(j *jobsmetrics.Metrics) {
		j.JobsCompletedOnce, j.JobsCompletedHandover, j.JobsRunning = once, hand, running
		j.JobsInserted = once + hand + running
	})
}
func twice(n int) reprotest.Set {
	return jobsSet(func(j *jobsmetrics.Metrics) { j.JobsStepsTwice = n })
}
func missing(n int) reprotest.Set {
	return jobsSet(func(j *jobsmetrics.Metrics) { j.JobsStepsMissing = n })
}
func jobsCutOff(n int) reprotest.Set {
	return jobsSet(func(j *jobsmetrics.Metrics) { j.JobsAbandoned = n })
}
func finalLog(b bool) reprotest.Set { return jobsSet(func(j *jobsmetrics.Metrics) { j.FinalLog = b }) }
func fits(b bool) reprotest.Set {
	return jobsSet(func(j *jobsmetrics.Metrics) { j.BudgetFits = reprotest.BoolP(b) })
}
func handover(ms float64) reprotest.Set {
	return jobsSet(func(j *jobsmetrics.Metrics) { j.JobHandoverMs = reprotest.FloatP(ms) })
}

// TestJobsRules judges synthetic results shaped like the runs measured on
// this machine, and a failing case per rule.
func TestJobsRules(t *testing.T) {
	killed := []reprotest.Set{reprotest.ExitCode(137), reprotest.ExitAfter(4030), finalLog(false), jobsCutOff(2), missing(0)}
	retry := func(plain, idem []report.Run) *report.Result {
		return reprotest.Result("job-retry", "go", reprotest.Variant("idempotent=false", plain), reprotest.Variant("idempotent=true", idem))
	}
	plainOK := reprotest.Runs(3, append(killed, ledger(2, 2, 0), twice(2))...)
	idemOK := reprotest.Runs(3, append(killed, ledger(2, 2, 0), twice(0))...)
	modes := func(full []report.Run) *report.Result {
		return reprotest.Result("job-modes", "go", reprotest.Variant("mode=none", reprotest.Runs(3, ledger(2, 0, 2))), reprotest.Variant("mode=close", reprotest.Runs(3, ledger(2, 0, 2))),
			reprotest.Variant("mode=full", full))
	}
	fullOK := []reprotest.Set{ledger(2, 2, 0), twice(0), missing(0), handover(9000), reprotest.ExitCode(0), reprotest.ExitAfter(3900), finalLog(true)}
	budget := func(equal, less []report.Run) *report.Result {
		return reprotest.Result("job-budget", "go", reprotest.Variant("DRAIN_MS=10000", equal), reprotest.Variant("DRAIN_MS=7000", less))
	}
	equalOK := reprotest.Runs(3, reprotest.ExitCode(137), reprotest.ExitAfter(10040), finalLog(false), fits(false))
	lessOK := reprotest.Runs(3, reprotest.ExitCode(1), reprotest.ExitAfter(7020), finalLog(true), fits(true), jobsCutOff(2))
	order := func(last, first []report.Run) *report.Result {
		return reprotest.Result("job-pool-order", "go", reprotest.Variant("POOL_CLOSE=last", last), reprotest.Variant("POOL_CLOSE=first", first))
	}
	lastOK := reprotest.Runs(3, reprotest.Dropped(0), ledger(2, 0, 0), reprotest.ExitCode(0))
	firstOK := reprotest.Runs(3, reprotest.Dropped(10), ledger(0, 0, 2), reprotest.ExitCode(0))
	second := func(ignore, restart []report.Run) *report.Result {
		return reprotest.Result("job-second-signal", "go", reprotest.Variant("REPEAT_SIGNAL=ignore", ignore), reprotest.Variant("REPEAT_SIGNAL=restart", restart))
	}
	ignoreOK := reprotest.Runs(3, reprotest.ExitCode(1), reprotest.ExitAfter(7020), finalLog(true))
	restartOK := reprotest.Runs(3, reprotest.ExitCode(137), reprotest.ExitAfter(10040), finalLog(false))
	cases := []reprotest.RuleCase{
		{Name: "killed, retried twice", Claim: "J1", Want: reproduce.Reproduced, Cell: "jobs_steps_twice 2", Res: retry(plainOK, idemOK)},
		{Name: "no rescue within the run", Claim: "J1", Want: reproduce.Differs, Why: "idempotent=false: no step applied twice in 3/3",
			Res: retry(reprotest.Runs(3, append(killed, ledger(0, 0, 4), twice(0))...), idemOK)},
		{Name: "idempotent applied twice", Claim: "J1", Want: reproduce.Differs, Why: "idempotent=true: a step applied twice in 3/3",
			Res: retry(plainOK, reprotest.Runs(3, append(killed, ledger(2, 2, 0), twice(1))...))},
		{Name: "exits before the kill", Claim: "J1", Want: reproduce.Differs, Why: "idempotent=false: exit code not 137 in 3/3",
			Res: retry(reprotest.Runs(3, reprotest.ExitCode(0), reprotest.ExitAfter(3000), finalLog(true), jobsCutOff(0), ledger(4, 0, 0), twice(0), missing(0)), idemOK)},
		{Name: "cooperative", Claim: "J2", Want: reproduce.Reproduced, Cell: "job_handover_ms 9000", Res: modes(reprotest.Runs(3, fullOK...))},
		{Name: "a job lost", Claim: "J2", Want: reproduce.Differs, Why: "not every inserted job completed in 1 of 3 runs",
			Res: modes(append(reprotest.Runs(2, fullOK...), reprotest.Run(append(fullOK, ledger(2, 1, 1))...)))},
		{Name: "no hand-over", Claim: "J2", Want: reproduce.Differs, Why: "no job completed after a hand-over in 3/3",
			Res: modes(reprotest.Runs(3, append(fullOK, ledger(4, 0, 0))...))},
		{Name: "a missing step", Claim: "J2", Want: reproduce.Differs, Why: "a completed job misses a step in 3/3",
			Res: modes(reprotest.Runs(3, append(fullOK, missing(1))...))},
		{Name: "full missing", Claim: "J2", Want: reproduce.NotRun, Why: "variant mode=full",
			Res: reprotest.Result("job-modes", "go", reprotest.Variant("mode=none", reprotest.Runs(3, ledger(2, 0, 2))))},
		{Name: "one budget", Claim: "J3", Want: reproduce.Reproduced, Cell: "budget_fits", Res: budget(equalOK, lessOK)},
		{Name: "the app beats the kill", Claim: "J3", Want: reproduce.Differs, Why: "DRAIN_MS=10000: exit code not 137 in 3/3",
			Res: budget(reprotest.Runs(3, reprotest.ExitCode(1), reprotest.ExitAfter(10017), finalLog(true), fits(false)), lessOK)},
		{Name: "killed with room to spare", Claim: "J3", Want: reproduce.Differs, Why: "DRAIN_MS=7000: exit code 137 or none in 3/3",
			Res: budget(equalOK, reprotest.Runs(3, reprotest.ExitCode(137), reprotest.ExitAfter(10040), finalLog(false), fits(true), jobsCutOff(2)))},
		{Name: "pool order", Claim: "J4", Want: reproduce.Reproduced, Cell: "dropped_inflight 0", Res: order(lastOK, firstOK)},
		{Name: "first harms nothing", Claim: "J4", Want: reproduce.Differs, Why: "POOL_CLOSE=first: no in-flight request failed in 3/3",
			Res: order(lastOK, reprotest.Runs(3, reprotest.Dropped(0), ledger(2, 0, 0), reprotest.ExitCode(0)))},
		{Name: "first completes the jobs", Claim: "J4", Want: reproduce.Differs, Why: "POOL_CLOSE=first: every job completed in 3 of 3",
			Res: order(lastOK, reprotest.Runs(3, reprotest.Dropped(10), ledger(2, 0, 0), reprotest.ExitCode(0)))},
		{Name: "last drops in flight", Claim: "J4", Want: reproduce.Differs, Why: "POOL_CLOSE=last: in-flight requests failed in 3/3",
			Res: order(reprotest.Runs(3, reprotest.Dropped(3), ledger(2, 0, 0), reprotest.ExitCode(0)), firstOK)},
		{Name: "second signal", Claim: "J5", Want: reproduce.Reproduced, Cell: "final_log", Res: second(ignoreOK, restartOK)},
		{Name: "restart survives", Claim: "J5", Want: reproduce.Differs, Why: "REPEAT_SIGNAL=restart: exit code not 137 in 3/3",
			Res: second(ignoreOK, ignoreOK)},
		{Name: "ignore killed", Claim: "J5", Want: reproduce.Differs, Why: "REPEAT_SIGNAL=ignore: exit code 137 or none in 3/3",
			Res: second(restartOK, restartOK)},
	}
	reprotest.RunRuleCases(t, Claims.Claims, cases)
}

// J1–J5 run the Go target's queue worker: planned on go only, not
// applicable on node, with variant labels the catalog scenarios expand to.
func TestJobsClaimsGoOnly(t *testing.T) {
	claims := Claims.Claims
	jobs, err := reproduce.Plan(claims, []string{"node", "go"}, 3, nil)
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
	reprotest.VariantsInCatalog(t, claims, "go")
}
