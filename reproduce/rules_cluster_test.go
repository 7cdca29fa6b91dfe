package reproduce

import (
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/cluster"
	"github.com/shutdownlab/shutdownlab/capabilities/cluster/clustermetrics"
	"github.com/shutdownlab/shutdownlab/capabilities/resources"
	"github.com/shutdownlab/shutdownlab/capabilities/resources/resourcemetrics"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// clusterSet sets cluster metrics on a synthetic run (a cluster run:
// cluster metrics present).
func clusterSet(f func(c *clustermetrics.Metrics)) set {
	return func(m *report.Metrics) {
		if cluster.Of(m) == nil {
			m.SetPart(cluster.Need, &clustermetrics.Metrics{})
		}
		f(cluster.Of(m))
	}
}

func bp(b bool) *bool { return &b }

// endedBy sets who ended the process: itself, or the engine's SIGKILL.
func endedBy(self, engine bool) set {
	return clusterSet(func(c *clustermetrics.Metrics) { c.EndedBySelf, c.EndedByEngineKill = bp(self), bp(engine) })
}
func forksAfter(n int) set {
	return clusterSet(func(c *clustermetrics.Metrics) { c.ForksAfterSignal = ip(n) })
}
func severed(n int) set {
	return clusterSet(func(c *clustermetrics.Metrics) { c.SeveredAtKill = ip(n) })
}
func crash(ms float64) set {
	return clusterSet(func(c *clustermetrics.Metrics) {
		c.Crashes, c.WorkerExitsSIGKILL, c.ResurrectionMs = 1, 1, fp(ms)
	})
}
func forced(ms float64) set {
	return clusterSet(func(c *clustermetrics.Metrics) { c.ForcedExit, c.ForcedExitMs = true, fp(ms) })
}

// fds sets the resource metrics of a run.
func fds(atSignal int, growth float64) set {
	return func(m *report.Metrics) {
		m.SetPart(resources.Need, &resourcemetrics.Metrics{FDsAtSignal: ip(atSignal), FDGrowthPerAbort: fp(growth)})
	}
}

// TestClusterRules judges synthetic results shaped like the runs measured
// on this machine, and a failing case per rule.
func TestClusterRules(t *testing.T) {
	blind := func(short, long []report.Run) *report.Result {
		return result("cluster-blind", "node", v("duration=5s", short), v("duration=14s", long))
	}
	killed := []set{exitCode(137), exitAfter(8040), endedBy(false, true)}
	shortOK := runs(3, append(killed, forksAfter(2))...)
	longOK := runs(3, append(killed, forksAfter(0), severed(20))...)
	gated := func(rs []report.Run) *report.Result { return result("cluster-gated", "node", v("default", rs)) }
	gatedOK := []set{crash(2.5), forksAfter(0), exitCode(0), exitAfter(2300), endedBy(true, false)}
	teardown := func(none, timeout []report.Run) *report.Result {
		return result("cluster-teardown", "node", v("TEARDOWN_MS=0", none), v("TEARDOWN_MS=4000", timeout))
	}
	waitOK := runs(3, append(killed, clusterSet(func(c *clustermetrics.Metrics) {}))...)
	forcedOK := runs(3, forced(4004), exitCode(1), exitAfter(4010), endedBy(true, false), severed(1))
	proxy := func(pipe, pipeline []report.Run) *report.Result {
		quick := runs(3, fds(59, 0), exitCode(0), exitAfter(40), clusterSet(func(c *clustermetrics.Metrics) {}))
		return result("cluster-proxy", "node",
			v("PROXY_IMPL=pipe,path=/proxy?ms=60000", pipe), v("PROXY_IMPL=pipeline,path=/proxy?ms=60000", pipeline),
			v("PROXY_IMPL=pipe,path=/proxy?ms=300", quick), v("PROXY_IMPL=pipeline,path=/proxy?ms=300", quick))
	}
	pipeOK := runs(3, fds(100, 0.95), forced(3004), exitCode(1), exitAfter(3010))
	pipelineOK := runs(3, fds(59, -0.03), exitCode(0), exitAfter(40), clusterSet(func(c *clustermetrics.Metrics) {}))
	cases := []ruleCase{
		// C1: forks after the signal, then the SIGKILL; severed at the kill.
		{name: "fights the orchestrator", claim: "C1", want: Reproduced, cell: "forks_after_signal 2",
			res: blind(shortOK, longOK)},
		{name: "no resurrection", claim: "C1", want: Differs, why: "duration=5s: no fork after the signal in 3/3",
			res: blind(runs(3, append(killed, forksAfter(0))...), longOK)},
		{name: "exits by itself", claim: "C1", want: Differs, why: "duration=14s: exit code not 137 in 3/3",
			res: blind(shortOK, runs(3, exitCode(0), exitAfter(3000), endedBy(true, false), forksAfter(0), severed(0)))},
		{name: "nothing severed", claim: "C1", want: Differs, why: "no request severed at the kill in 3/3",
			res: blind(shortOK, runs(3, append(killed, forksAfter(0), severed(0))...))},
		{name: "14 s variant missing", claim: "C1", want: NotRun, why: "variant duration=14s",
			res: result("cluster-blind", "node", v("duration=5s", shortOK))},
		// C2: a crash is re-forked at once; a shutdown forks nothing.
		{name: "gated", claim: "C2", want: Reproduced, cell: "resurrection_ms 2.5",
			res: gated(runs(3, gatedOK...))},
		{name: "slow resurrection", claim: "C2", want: Differs, why: "not re-forked within 100 ms (or never) in 1/3",
			res: gated(append(runs(2, gatedOK...), mkRun(append(gatedOK, crash(450))...)))},
		{name: "forks on shutdown", claim: "C2", want: Differs, why: "workers forked after the signal in 3/3",
			res: gated(runs(3, append(gatedOK, forksAfter(2))...))},
		{name: "killed at grace", claim: "C2", want: Differs, why: "exit code not 0 in 3/3",
			res: gated(runs(3, append(gatedOK, exitCode(137), exitAfter(10040), endedBy(false, true))...))},
		// C3: the plain close waits for the SIGKILL; the timeout forces it.
		{name: "waits vs forced", claim: "C3", want: Reproduced, cell: "forced_exit_ms 4004",
			res: teardown(waitOK, forcedOK)},
		{name: "close does not wait", claim: "C3", want: Differs, why: "TEARDOWN_MS=0: exit code not 137",
			res: teardown(runs(3, exitCode(0), exitAfter(30), endedBy(true, false)), forcedOK)},
		{name: "no forced exit", claim: "C3", want: Differs, why: "TEARDOWN_MS=4000: no forced_exit logged in 3/3",
			res: teardown(waitOK, runs(3, append(killed, clusterSet(func(c *clustermetrics.Metrics) {}))...))},
		{name: "forced exit 0", claim: "C3", want: Differs, why: "exit code 0, 137 or none in 3/3",
			res: teardown(waitOK, runs(3, forced(4004), exitCode(0), exitAfter(4010), endedBy(true, false)))},
		{name: "forced late", claim: "C3", want: Differs, why: "forced_exit outside",
			res: teardown(waitOK, runs(3, forced(7900), exitCode(1), exitAfter(7910), endedBy(true, false)))},
		// C4: pipe grows an fd per abort and needs the forced exit.
		{name: "pipe leaks", claim: "C4", want: Reproduced, cell: "fd_growth_per_abort 0.95",
			res: proxy(pipeOK, pipelineOK)},
		{name: "pipe does not leak", claim: "C4", want: Differs, why: "pipe: fd growth per abort < 0.50 (or none) in 3/3 runs; pipe: exited",
			res: proxy(runs(3, fds(59, 0), exitCode(0), exitAfter(40), clusterSet(func(c *clustermetrics.Metrics) {})), pipelineOK)},
		{name: "pipeline leaks", claim: "C4", want: Differs, why: "pipeline: fd growth per abort ≥ 0.20",
			res: proxy(pipeOK, runs(3, fds(100, 0.9), exitCode(0), exitAfter(40), clusterSet(func(c *clustermetrics.Metrics) {})))},
		{name: "no resource samples", claim: "C4", want: Differs, why: "(or none) in 3/3",
			res: proxy(runs(3, forced(3004), exitCode(1), exitAfter(3010), func(m *report.Metrics) {
				m.SetPart(resources.Need, &resourcemetrics.Metrics{})
			}), pipelineOK)},
	}
	runRuleCases(t, cases)
}

// C1–C4 run the Node cluster target: planned on node only, not applicable
// on go, and a go-only reproduction runs nothing for them.
func TestPlanClusterNodeOnly(t *testing.T) {
	claims, err := Select([]string{"C1", "C2", "C3", "C4"})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := Plan(claims, []string{"node", "go"}, 3, nil)
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
	jobs, err = Plan(claims[:1], []string{"go"}, 1, nil)
	if err != nil || len(jobs) != 1 || jobs[0].Skip == "" || jobs[0].NotApplicable["go"] == "" || len(jobs[0].Runtimes) != 0 {
		t.Errorf("C1 on go only: %+v, %v; want one skipped job, go not applicable", jobs, err)
	}
	// A scenario without the cluster program still runs on both.
	sc, err := scenarios.Find("direct-inflight")
	if err != nil {
		t.Fatal(err)
	}
	if notApplicable(sc, "go") != "" {
		t.Errorf("direct-inflight on go: not applicable %q", notApplicable(sc, "go"))
	}
}

// The variant labels C1–C4 judge are labels the catalog scenarios expand
// to (matchLabel), so a renamed axis breaks this test rather than turning
// a claim into "variant not in the result" after a run.
func TestClusterVariantsInCatalog(t *testing.T) {
	cs, err := Select([]string{"C1", "C2", "C3", "C4"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		sc, err := scenarios.Find(c.Scenario)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		vs, err := sc.Expand([]string{"runs=1", runtimeKey + "=node"})
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
