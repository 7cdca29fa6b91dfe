package cluster

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/cluster/clustermetrics"
	"github.com/shutdownlab/shutdownlab/capabilities/resources"
	"github.com/shutdownlab/shutdownlab/capabilities/resources/resourcemetrics"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
	"github.com/shutdownlab/shutdownlab/reproduce/reprotest"
)

// clusterSet sets cluster metrics on a synthetic run (a cluster run:
// cluster metrics present).
func clusterSet(f func(c *clustermetrics.Metrics)) reprotest.Set {
	return func(m *report.Metrics) {
		if Of(m) == nil {
			m.SetPart(Need, &clustermetrics.Metrics{})
		}
		f(Of(m))
	}
}

// endedBy sets who ended the process: itself, or the engine's SIGKILL.
func endedBy(self, engine bool) reprotest.Set {
	return clusterSet(func(c *clustermetrics.Metrics) {
		c.EndedBySelf, c.EndedByEngineKill = reprotest.BoolP(self), reprotest.BoolP(engine)
	})
}
func forksAfter(n int) reprotest.Set {
	return clusterSet(func(c *clustermetrics.Metrics) { c.ForksAfterSignal = reprotest.IntP(n) })
}
func severed(n int) reprotest.Set {
	return clusterSet(func(c *clustermetrics.Metrics) { c.SeveredAtKill = reprotest.IntP(n) })
}
func crash(ms float64) reprotest.Set {
	return clusterSet(func(c *clustermetrics.Metrics) {
		c.Crashes, c.WorkerExitsSIGKILL, c.ResurrectionMs = 1, 1, reprotest.FloatP(ms)
	})
}
func forced(ms float64) reprotest.Set {
	return clusterSet(func(c *clustermetrics.Metrics) { c.ForcedExit, c.ForcedExitMs = true, reprotest.FloatP(ms) })
}

// fds sets the resource metrics of a run.
func fds(atSignal int, growth float64) reprotest.Set {
	return func(m *report.Metrics) {
		m.SetPart(resources.Need, &resourcemetrics.Metrics{FDsAtSignal: reprotest.IntP(atSignal), FDGrowthPerAbort: reprotest.FloatP(growth)})
	}
}

// TestClusterRules judges synthetic results shaped like the runs measured
// on this machine, and a failing case per rule.
func TestClusterRules(t *testing.T) {
	blind := func(short, long []report.Run) *report.Result {
		return reprotest.Result("cluster-blind", "node", reprotest.Variant("duration=5s", short), reprotest.Variant("duration=14s", long))
	}
	killed := []reprotest.Set{reprotest.ExitCode(137), reprotest.ExitAfter(8040), endedBy(false, true)}
	shortOK := reprotest.Runs(3, append(killed, forksAfter(2))...)
	longOK := reprotest.Runs(3, append(killed, forksAfter(0), severed(20))...)
	gated := func(rs []report.Run) *report.Result {
		return reprotest.Result("cluster-gated", "node", reprotest.Variant("default", rs))
	}
	gatedOK := []reprotest.Set{crash(2.5), forksAfter(0), reprotest.ExitCode(0), reprotest.ExitAfter(2300), endedBy(true, false)}
	teardown := func(none, timeout []report.Run) *report.Result {
		return reprotest.Result("cluster-teardown", "node", reprotest.Variant("TEARDOWN_MS=0", none), reprotest.Variant("TEARDOWN_MS=4000", timeout))
	}
	waitOK := reprotest.Runs(3, append(killed, clusterSet(func(c *clustermetrics.Metrics) {}))...)
	forcedOK := reprotest.Runs(3, forced(4004), reprotest.ExitCode(1), reprotest.ExitAfter(4010), endedBy(true, false), severed(1))
	proxy := func(pipe, pipeline []report.Run) *report.Result {
		quick := reprotest.Runs(3, fds(59, 0), reprotest.ExitCode(0), reprotest.ExitAfter(40), clusterSet(func(c *clustermetrics.Metrics) {}))
		return reprotest.Result("cluster-proxy", "node",
			reprotest.Variant("PROXY_IMPL=pipe,path=/proxy?ms=60000", pipe), reprotest.Variant("PROXY_IMPL=pipeline,path=/proxy?ms=60000", pipeline),
			reprotest.Variant("PROXY_IMPL=pipe,path=/proxy?ms=300", quick), reprotest.Variant("PROXY_IMPL=pipeline,path=/proxy?ms=300", quick))
	}
	pipeOK := reprotest.Runs(3, fds(100, 0.95), forced(3004), reprotest.ExitCode(1), reprotest.ExitAfter(3010))
	pipelineOK := reprotest.Runs(3, fds(59, -0.03), reprotest.ExitCode(0), reprotest.ExitAfter(40), clusterSet(func(c *clustermetrics.Metrics) {}))
	cases := []reprotest.RuleCase{
		// C1: forks after the signal, then the SIGKILL; severed at the kill.
		{Name: "fights the orchestrator", Claim: "C1", Want: reproduce.Reproduced, Cell: "forks_after_signal 2",
			Res: blind(shortOK, longOK)},
		{Name: "no resurrection", Claim: "C1", Want: reproduce.Differs, Why: "duration=5s: no fork after the signal in 3/3",
			Res: blind(reprotest.Runs(3, append(killed, forksAfter(0))...), longOK)},
		{Name: "exits by itself", Claim: "C1", Want: reproduce.Differs, Why: "duration=14s: exit code not 137 in 3/3",
			Res: blind(shortOK, reprotest.Runs(3, reprotest.ExitCode(0), reprotest.ExitAfter(3000), endedBy(true, false), forksAfter(0), severed(0)))},
		{Name: "nothing severed", Claim: "C1", Want: reproduce.Differs, Why: "no request severed at the kill in 3/3",
			Res: blind(shortOK, reprotest.Runs(3, append(killed, forksAfter(0), severed(0))...))},
		{Name: "14 s variant missing", Claim: "C1", Want: reproduce.NotRun, Why: "variant duration=14s",
			Res: reprotest.Result("cluster-blind", "node", reprotest.Variant("duration=5s", shortOK))},
		// C2: a crash is re-forked at once; a shutdown forks nothing.
		{Name: "gated", Claim: "C2", Want: reproduce.Reproduced, Cell: "resurrection_ms 2.5",
			Res: gated(reprotest.Runs(3, gatedOK...))},
		{Name: "slow resurrection", Claim: "C2", Want: reproduce.Differs, Why: "not re-forked within 100 ms (or never) in 1/3",
			Res: gated(append(reprotest.Runs(2, gatedOK...), reprotest.Run(append(gatedOK, crash(450))...)))},
		{Name: "forks on shutdown", Claim: "C2", Want: reproduce.Differs, Why: "workers forked after the signal in 3/3",
			Res: gated(reprotest.Runs(3, append(gatedOK, forksAfter(2))...))},
		{Name: "killed at grace", Claim: "C2", Want: reproduce.Differs, Why: "exit code not 0 in 3/3",
			Res: gated(reprotest.Runs(3, append(gatedOK, reprotest.ExitCode(137), reprotest.ExitAfter(10040), endedBy(false, true))...))},
		// C3: the plain close waits for the SIGKILL; the timeout forces it.
		{Name: "waits vs forced", Claim: "C3", Want: reproduce.Reproduced, Cell: "forced_exit_ms 4004",
			Res: teardown(waitOK, forcedOK)},
		{Name: "close does not wait", Claim: "C3", Want: reproduce.Differs, Why: "TEARDOWN_MS=0: exit code not 137",
			Res: teardown(reprotest.Runs(3, reprotest.ExitCode(0), reprotest.ExitAfter(30), endedBy(true, false)), forcedOK)},
		{Name: "no forced exit", Claim: "C3", Want: reproduce.Differs, Why: "TEARDOWN_MS=4000: no forced_exit logged in 3/3",
			Res: teardown(waitOK, reprotest.Runs(3, append(killed, clusterSet(func(c *clustermetrics.Metrics) {}))...))},
		{Name: "forced exit 0", Claim: "C3", Want: reproduce.Differs, Why: "exit code 0, 137 or none in 3/3",
			Res: teardown(waitOK, reprotest.Runs(3, forced(4004), reprotest.ExitCode(0), reprotest.ExitAfter(4010), endedBy(true, false)))},
		{Name: "forced late", Claim: "C3", Want: reproduce.Differs, Why: "forced_exit outside",
			Res: teardown(waitOK, reprotest.Runs(3, forced(7900), reprotest.ExitCode(1), reprotest.ExitAfter(7910), endedBy(true, false)))},
		// C4: pipe grows an fd per abort and needs the forced exit.
		{Name: "pipe leaks", Claim: "C4", Want: reproduce.Reproduced, Cell: "fd_growth_per_abort 0.95",
			Res: proxy(pipeOK, pipelineOK)},
		{Name: "pipe does not leak", Claim: "C4", Want: reproduce.Differs, Why: "pipe: fd growth per abort < 0.50 (or none) in 3/3 runs; pipe: exited",
			Res: proxy(reprotest.Runs(3, fds(59, 0), reprotest.ExitCode(0), reprotest.ExitAfter(40), clusterSet(func(c *clustermetrics.Metrics) {})), pipelineOK)},
		{Name: "pipeline leaks", Claim: "C4", Want: reproduce.Differs, Why: "pipeline: fd growth per abort ≥ 0.20",
			Res: proxy(pipeOK, reprotest.Runs(3, fds(100, 0.9), reprotest.ExitCode(0), reprotest.ExitAfter(40), clusterSet(func(c *clustermetrics.Metrics) {})))},
		{Name: "no resource samples", Claim: "C4", Want: reproduce.Differs, Why: "(or none) in 3/3",
			Res: proxy(reprotest.Runs(3, forced(3004), reprotest.ExitCode(1), reprotest.ExitAfter(3010), func(m *report.Metrics) {
				m.SetPart(resources.Need, &resourcemetrics.Metrics{})
			}), pipelineOK)},
	}
	reprotest.RunRuleCases(t, Claims.Claims, cases)
}

// C1–C4 run the Node cluster target: planned on node only, not applicable
// on go, and a go-only reproduction runs nothing for them.
func TestPlanClusterNodeOnly(t *testing.T) {
	claims := Claims.Claims
	jobs, err := reproduce.Plan(claims, []string{"node", "go"}, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 4 {
		t.Fatalf("%d jobs, want 4 (one per scenario, node only): %+v", len(jobs), jobs)
	}
	for _, j := range jobs {
		if j.Sub != "node" || strings.Join(j.Runtimes, ",") != "node" || j.Skip != "" || j.Total() <= 0 {
			t.Errorf("%s: sub %q runtimes %v skip %q estimate %s", j.Scenario, j.Sub, j.Runtimes, j.Skip, j.Total())
		}
		if !strings.Contains(j.NotApplicable["go"], "Node only") {
			t.Errorf("%s: go not applicable %q", j.Scenario, j.NotApplicable["go"])
		}
	}
	jobs, err = reproduce.Plan(claims[:1], []string{"go"}, 1, nil)
	if err != nil || len(jobs) != 1 || jobs[0].Skip == "" || jobs[0].NotApplicable["go"] == "" || len(jobs[0].Runtimes) != 0 {
		t.Errorf("C1 on go only: %+v, %v; want one skipped job, go not applicable", jobs, err)
	}
}

// The variant labels C1–C4 judge are labels the catalog scenarios expand
// to (reproduce.MatchLabel), so a renamed axis breaks this test rather than turning
// a claim into "variant not in the result" after a run.
func TestClusterVariantsInCatalog(t *testing.T) {
	reprotest.VariantsInCatalog(t, Claims.Claims, "node")
}
