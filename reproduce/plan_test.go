package reproduce_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/reproduce"
	"github.com/shutdownlab/shutdownlab/reproduce/reprotest"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// The plan runs each scenario once per runtime, except a scenario with a
// target.runtime axis, which runs once for both (or narrowed to one).
func TestPlan(t *testing.T) {
	claims, err := reproduce.Select([]string{"P1", "P2", "P3", "P4"})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := reproduce.Plan(claims, []string{"node", "go"}, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range jobs {
		got = append(got, j.Scenario+" "+j.Sub+" "+strings.Join(j.Runtimes, "+")+" "+strings.Join(j.Sets, " ")+" "+strings.Join(j.Claims, ","))
		if j.Skip != "" || j.Total() <= 0 {
			t.Errorf("%s: skip %q, estimate %s", j.Scenario, j.Skip, j.Total())
		}
	}
	want := []string{
		"pid1-signal node node runs=3 target.runtime=node P1",
		"pid1-signal go go runs=3 target.runtime=go P1",
		"direct-inflight node node runs=3 target.runtime=node P2,P3",
		"direct-inflight go go runs=3 target.runtime=go P2,P3",
		"roll-behind-caddy runtimes node+go runs=3 P4",
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// pid1-signal: 2 variants x 3 runs x (8 s load + 5 s overhead).
	if d := jobs[0].Estimate["node"]; d != 78*time.Second {
		t.Errorf("pid1-signal estimate %s, want 1m18s", d)
	}
	// One runtime narrows the runtime axis.
	jobs, err = reproduce.Plan(claims[3:], []string{"go"}, 1, nil)
	if err != nil || len(jobs) != 1 || jobs[0].Sub != "go" || !slices.Contains(jobs[0].Sets, "target.runtime=go") {
		t.Errorf("P4 on go: %+v, %v", jobs, err)
	}
	if _, err := reproduce.Plan(claims, []string{"bun"}, 1, nil); err == nil {
		t.Error("runtime bun: no error")
	}
}

// The estimate of the whole reproduction, printed for the record.
func TestEstimateAll(t *testing.T) {
	jobs, err := reproduce.Plan(reproduce.Claims(), reproduce.DefaultRuntimes, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		t.Logf("%-20s %-8s %s skip=%q", j.Scenario, j.Sub, j.Total(), j.Skip)
	}
	t.Logf("estimate: %s", reproduce.FormatEstimate(reproduce.EstimateByRuntime(jobs), reproduce.DefaultRuntimes))
}

func TestSplitRuntime(t *testing.T) {
	res := reprotest.Result("roll-behind-caddy", "node", reprotest.Variant("runtime=node,mode=close", reprotest.Runs(1)), reprotest.Variant("runtime=go,mode=close", reprotest.Runs(1)), reprotest.Variant("runtime=node", reprotest.Runs(1)))
	// Label the go variant's runs as Go through the parameter.
	res.Variants[1].Runs[0].Meta.Params = map[string]string{"target.runtime": "go"}
	node := reproduce.SplitRuntime(res, "node")
	if node == nil || len(node.Variants) != 2 || node.Variants[0].Label != "mode=close" || node.Variants[1].Label != "default" {
		t.Fatalf("node part: %+v", node)
	}
	if g := reproduce.SplitRuntime(res, "go"); g == nil || len(g.Variants) != 1 || reproduce.ResultRuntime(g) != "go" {
		t.Errorf("go part: %+v", g)
	}
	if reproduce.SplitRuntime(res, "bun") != nil {
		t.Error("bun part not nil")
	}
	if res.Variants[0].Label != "runtime=node,mode=close" {
		t.Error("SplitRuntime changed its input")
	}
}

// A scenario without a program or load kind of one runtime (the cluster
// program is Node's) runs on both.
func TestApplicableToBoth(t *testing.T) {
	sc, err := scenarios.Find("direct-inflight")
	if err != nil {
		t.Fatal(err)
	}
	if reproduce.WhyNotApplicable(sc, "go") != "" {
		t.Errorf("direct-inflight on go: not applicable %q", reproduce.WhyNotApplicable(sc, "go"))
	}
}
