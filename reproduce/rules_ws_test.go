package reproduce

import (
	"os"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/websockets"
	"github.com/shutdownlab/shutdownlab/capabilities/websockets/wsmetrics"
	"github.com/shutdownlab/shutdownlab/report"
)

// wsSet sets WebSocket metrics on a synthetic run (a ws run: its ws
// part present).
func wsSet(f func(w *wsmetrics.Metrics)) set {
	return func(m *report.Metrics) {
		if websockets.Of(m) == nil {
			m.SetPart(websockets.Need, &wsmetrics.Metrics{})
		}
		f(websockets.Of(m))
	}
}

func wsAdmission(refused, accepted int) set {
	return wsSet(func(w *wsmetrics.Metrics) {
		w.WSRefusedDraining, w.WSAcceptedAfterReadyFalse = ip(refused), ip(accepted)
	})
}

// wsCloses sets the close codes and the close times after the signal.
func wsCloses(clients, c1001, c1006, p50, p95 int) set {
	return wsSet(func(w *wsmetrics.Metrics) {
		w.WSClients, w.WSClose1001, w.WSClose1006 = clients, c1001, c1006
		w.WSCloseAfterSignalP50Ms, w.WSCloseAfterSignalP95Ms = fp(float64(p50)), fp(float64(p95))
	})
}

func wsSpread(ms float64) set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSCloseSpreadMs = fp(ms) })
}
func wsTerminated(n int) set { return wsSet(func(w *wsmetrics.Metrics) { w.WSTerminated = n }) }
func wsPeak(n int) set       { return wsSet(func(w *wsmetrics.Metrics) { w.WSPeakHandshakes = ip(n) }) }
func wsPerClient(x float64) set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSAttemptsPerClientMean = fp(x) })
}
func wsUnknown(n int) set     { return wsSet(func(w *wsmetrics.Metrics) { w.WSEventsUnknown = n }) }
func wsDupRejected(n int) set { return wsSet(func(w *wsmetrics.Metrics) { w.WSEventsDupRejected = n }) }
func wsBudget(ms float64, fits bool) set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSBudgetMs, w.WSBudgetFits = fp(ms), &fits })
}

// retireYAML is the catalog's ws-retire scenario file (with its raw peers).
func retireYAML(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../scenarios/catalog/ws-retire.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWSRules judges synthetic results shaped like the measured ones, and
// a failing case per rule.
func TestWSRules(t *testing.T) {
	admission := func(rt string, refuse, accept []report.Run) *report.Result {
		return result("ws-admission", rt, v("UPGRADES_WHILE_DRAINING=refuse", refuse), v("UPGRADES_WHILE_DRAINING=accept", accept))
	}
	retire := func(rt string, yml string, close, full []report.Run) *report.Result {
		res := result("ws-retire", rt, v("mode=close", close), v("mode=full", full))
		res.ScenarioYAML = yml
		return res
	}
	yml := retireYAML(t)
	if rawPeers(yml) == 0 {
		t.Fatal("ws-retire.yaml has no load.ws.raw_peers: W3's deadline half cannot be judged")
	}
	fullOK := runs(3, wsCloses(200, 200, 0, 480, 960), wsSpread(1000), wsTerminated(5), exitCode(0))
	nodeClose := runs(3, wsCloses(200, 0, 200, 6060, 6070), exitCode(137), exitAfter(6068))
	goClose := runs(3, wsCloses(200, 0, 200, 20, 27), exitCode(0), exitAfter(28))
	storm := func(immPeak, fjPeak int, immDouble, fjDouble float64) *report.Result {
		return result("ws-storm", "go",
			v("kind=immediate,double_schedule=false", runs(3, wsPeak(immPeak), wsPerClient(8.9))),
			v("kind=immediate,double_schedule=true", runs(3, wsPeak(immPeak), wsPerClient(immDouble))),
			v("kind=full-jitter,double_schedule=false", runs(3, wsPeak(fjPeak), wsPerClient(2.45))),
			v("kind=full-jitter,double_schedule=true", runs(3, wsPeak(fjPeak), wsPerClient(fjDouble))))
	}
	replay := func(rt string, withReplay, without []report.Run) *report.Result {
		return result("ws-replay", rt, v("EVENTS_REPLAY=1000", withReplay), v("EVENTS_REPLAY=0", without))
	}
	budget := func(rt string, t5, t10 []report.Run) *report.Result {
		return result("ws-budget", rt, v("timeout=5s", t5), v("timeout=10s", t10))
	}
	b5 := runs(3, wsBudget(7000, false), exitCode(137), exitAfter(5060))
	b10 := runs(3, wsBudget(7000, true), exitCode(0), exitAfter(7100))
	cases := []ruleCase{
		// W1: the draining flag refuses; readiness alone accepts.
		{name: "refuse vs accept", claim: "W1", want: Reproduced, cell: "ws_upgrades_refused_draining 38",
			res: admission("go", runs(3, wsAdmission(38, 0)), runs(3, wsAdmission(0, 23)))},
		{name: "refuse accepts one", claim: "W1", want: Differs, why: "refuse: upgrades accepted after readiness failed in 1/3",
			res: admission("go", append(runs(2, wsAdmission(38, 0)), mkRun(wsAdmission(30, 1))), runs(3, wsAdmission(0, 23)))},
		{name: "race never seen", claim: "W1", want: Differs, why: "the race did not show",
			res: admission("node", runs(3, wsAdmission(38, 0)), runs(3, wsAdmission(0, 0)))},
		{name: "not a ws run", claim: "W1", want: NotRun, why: "variant UPGRADES_WHILE_DRAINING=accept",
			res: result("ws-admission", "go", v("UPGRADES_WHILE_DRAINING=refuse", runs(3, wsAdmission(38, 0))))},
		// W2: close mode does not retire the streams; per runtime.
		{name: "node killed at grace", claim: "W2", want: Reproduced, cell: "exit_code 137",
			res: retire("node", yml, nodeClose, fullOK)},
		{name: "go exits by itself", claim: "W2", want: Reproduced, cell: "exit_after_ms 28",
			res: retire("go", yml, goClose, fullOK)},
		{name: "node exits cleanly", claim: "W2", want: Differs, why: "(exit code not 137) in 3/3",
			res: retire("node", yml, runs(3, wsCloses(200, 0, 200, 40, 50), exitCode(0), exitAfter(45)), fullOK)},
		{name: "node streams closed early", claim: "W2", want: Differs, why: "> 1 s before the kill",
			res: retire("node", yml, runs(3, wsCloses(200, 0, 200, 40, 50), exitCode(137), exitAfter(6068)), fullOK)},
		{name: "go killed", claim: "W2", want: Differs, why: "Go's Shutdown neither closes",
			res: retire("go", yml, nodeClose, fullOK)},
		{name: "close sends 1001", claim: "W2", want: Differs, why: "got a 1001 in 3/3",
			res: retire("node", yml, runs(3, wsCloses(200, 200, 0, 500, 950), exitCode(137), exitAfter(6068)), fullOK)},
		// W3: 1001 to everyone, spread over the window, raw peers terminated.
		{name: "spread and deadline", claim: "W3", want: Reproduced, cell: "ws_terminated 5",
			res: retire("node", yml, nodeClose, fullOK)},
		{name: "a spike", claim: "W3", want: Differs, why: "median close time outside 20–80%",
			res: retire("go", yml, goClose, runs(3, wsCloses(200, 200, 0, 5, 9), wsSpread(1000), wsTerminated(5), exitCode(0)))},
		{name: "late closes", claim: "W3", want: Differs, why: "p95 close time past",
			res: retire("go", yml, goClose, runs(3, wsCloses(200, 200, 0, 600, 2900), wsSpread(1000), wsTerminated(5), exitCode(0)))},
		{name: "abnormal closes", claim: "W3", want: Differs, why: "fewer 1001 closes than clients in 3/3 runs; mode=full: 1006 closes in 3/3",
			res: retire("go", yml, goClose, runs(3, wsCloses(200, 150, 50, 480, 960), wsSpread(1000), wsTerminated(5), exitCode(0)))},
		{name: "raw peers not terminated", claim: "W3", want: Differs, why: "fewer than 5 peers",
			res: retire("go", yml, goClose, runs(3, wsCloses(200, 200, 0, 480, 960), wsSpread(1000), wsTerminated(0), exitCode(0)))},
		{name: "no raw peers in the scenario", claim: "W3", want: NotRun, why: "no raw peer",
			res: retire("go", strings.ReplaceAll(yml, "raw_peers:", "# raw_peers:"), goClose, fullOK)},
		// W4: the storm and the double schedule.
		{name: "immediate storms", claim: "W4", want: Reproduced, cell: "ws_peak_handshakes_per_100ms 223",
			res: storm(223, 98, 41, 11)},
		{name: "jitter no calmer", claim: "W4", want: Differs, why: "not higher with immediate (98) than with full-jitter (98)",
			res: storm(98, 98, 41, 11)},
		{name: "double schedule harmless", claim: "W4", want: Differs, why: "kind=full-jitter: median attempts per client not higher",
			res: storm(223, 98, 41, 2.45)},
		// W5: replay closes the gap; without it the gap is reported.
		{name: "replay vs gap", claim: "W5", want: Reproduced, cell: "ws_events_dup_rejected 300",
			res: replay("node", runs(3, wsUnknown(0), wsDupRejected(300)), runs(3, wsUnknown(1200)))},
		{name: "gap reported as zero loss", claim: "W5", want: Differs, why: "EVENTS_REPLAY=0: no unknown event",
			res: replay("go", runs(3, wsUnknown(0), wsDupRejected(300)), runs(3, wsUnknown(0)))},
		{name: "replay misses", claim: "W5", want: Differs, why: "EVENTS_REPLAY=1000: unknown events (replay missed some) in 3/3",
			res: replay("go", runs(3, wsUnknown(4), wsDupRejected(300)), runs(3, wsUnknown(1200)))},
		// W6: the budget against the stop timeout.
		{name: "killed vs fits", claim: "W6", want: Reproduced, cell: "timeout=5s: ws_budget_fits 0/3 true; ws_budget_ms 7000",
			res: budget("node", b5, b10)},
		{name: "10 s killed", claim: "W6", want: Differs, why: "timeout=10s: exit code not 0 in 3/3",
			res: budget("go", b5, runs(3, wsBudget(7000, true), exitCode(137), exitAfter(10050)))},
		{name: "5 s survives", claim: "W6", want: Differs, why: "timeout=5s: not killed",
			res: budget("go", runs(3, wsBudget(7000, false), exitCode(0), exitAfter(4900)), b10)},
		{name: "budget not recorded", claim: "W6", want: Differs, why: "budget fits (or not recorded) in 3/3",
			res: budget("go", runs(3, exitCode(137), exitAfter(5060), wsSet(func(w *wsmetrics.Metrics) { w.WSBudgetMs = fp(7000) })), b10)},
	}
	runRuleCases(t, cases)
}

// A report names the source of the claims it judges: the P rig, the W
// article, the C article, or several.
func TestSourceLines(t *testing.T) {
	rep := func(ids ...string) *Report {
		r := &Report{}
		for _, id := range ids {
			r.Claims = append(r.Claims, ClaimResult{Claim: claimByID(t, id)})
		}
		return r
	}
	cases := []struct {
		name          string
		rep           *Report
		rig, art, cls bool
	}{
		{"no claims", rep(), true, false, false},
		{"P only", rep("P2"), true, false, false},
		{"W only", rep("W2", "W3"), false, true, false},
		{"both", rep("P9", "W6"), true, true, false},
		{"C only", rep("C1", "C4"), false, false, true},
		{"W and C", rep("W1", "C2"), false, true, true},
	}
	for _, tc := range cases {
		got := strings.Join(tc.rep.sourceLines(), "\n")
		if strings.Contains(got, SourceRig) != tc.rig || strings.Contains(got, WSSource) != tc.art || strings.Contains(got, ClusterSource) != tc.cls {
			t.Errorf("%s: %q; want rig %v, ws article %v, cluster article %v", tc.name, got, tc.rig, tc.art, tc.cls)
		}
	}
}
