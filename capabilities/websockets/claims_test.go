package websockets

import (
	"os"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/capabilities/websockets/wsmetrics"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
	"github.com/shutdownlab/shutdownlab/reproduce/reprotest"
)

// wsSet sets WebSocket metrics on a synthetic run (a ws run: its ws
// part present).
func wsSet(f func(w *wsmetrics.Metrics)) reprotest.Set {
	return func(m *report.Metrics) {
		if Of(m) == nil {
			m.SetPart(Need, &wsmetrics.Metrics{})
		}
		f(Of(m))
	}
}

func wsAdmission(refused, accepted int) reprotest.Set {
	return wsSet(func(w *wsmetrics.Metrics) {
		w.WSRefusedDraining, w.WSAcceptedAfterReadyFalse = reprotest.IntP(refused), reprotest.IntP(accepted)
	})
}

// wsCloses sets the close codes and the close times after the signal.
func wsCloses(clients, c1001, c1006, p50, p95 int) reprotest.Set {
	return wsSet(func(w *wsmetrics.Metrics) {
		w.WSClients, w.WSClose1001, w.WSClose1006 = clients, c1001, c1006
		w.WSCloseAfterSignalP50Ms, w.WSCloseAfterSignalP95Ms = reprotest.FloatP(float64(p50)), reprotest.FloatP(float64(p95))
	})
}

func wsSpread(ms float64) reprotest.Set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSCloseSpreadMs = reprotest.FloatP(ms) })
}
func wsTerminated(n int) reprotest.Set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSTerminated = n })
}
func wsPeak(n int) reprotest.Set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSPeakHandshakes = reprotest.IntP(n) })
}
func wsPerClient(x float64) reprotest.Set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSAttemptsPerClientMean = reprotest.FloatP(x) })
}
func wsUnknown(n int) reprotest.Set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSEventsUnknown = n })
}
func wsDupRejected(n int) reprotest.Set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSEventsDupRejected = n })
}
func wsBudget(ms float64, fits bool) reprotest.Set {
	return wsSet(func(w *wsmetrics.Metrics) { w.WSBudgetMs, w.WSBudgetFits = reprotest.FloatP(ms), &fits })
}

// retireYAML is the catalog's ws-retire scenario file (with its raw peers).
func retireYAML(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../scenarios/catalog/ws-retire.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWSRules judges synthetic results shaped like the measured ones, and
// a failing case per rule.
func TestWSRules(t *testing.T) {
	admission := func(rt string, refuse, accept []report.Run) *report.Result {
		return reprotest.Result("ws-admission", rt, reprotest.Variant("UPGRADES_WHILE_DRAINING=refuse", refuse), reprotest.Variant("UPGRADES_WHILE_DRAINING=accept", accept))
	}
	retire := func(rt string, yml string, close, full []report.Run) *report.Result {
		res := reprotest.Result("ws-retire", rt, reprotest.Variant("mode=close", close), reprotest.Variant("mode=full", full))
		res.ScenarioYAML = yml
		return res
	}
	yml := retireYAML(t)
	if rawPeers(yml) == 0 {
		t.Fatal("ws-retire.yaml has no load.ws.raw_peers: W3's deadline half cannot be judged")
	}
	fullOK := reprotest.Runs(3, wsCloses(200, 200, 0, 480, 960), wsSpread(1000), wsTerminated(5), reprotest.ExitCode(0))
	nodeClose := reprotest.Runs(3, wsCloses(200, 0, 200, 6060, 6070), reprotest.ExitCode(137), reprotest.ExitAfter(6068))
	goClose := reprotest.Runs(3, wsCloses(200, 0, 200, 20, 27), reprotest.ExitCode(0), reprotest.ExitAfter(28))
	storm := func(immPeak, fjPeak int, immDouble, fjDouble float64) *report.Result {
		return reprotest.Result("ws-storm", "go",
			reprotest.Variant("kind=immediate,double_schedule=false", reprotest.Runs(3, wsPeak(immPeak), wsPerClient(8.9))),
			reprotest.Variant("kind=immediate,double_schedule=true", reprotest.Runs(3, wsPeak(immPeak), wsPerClient(immDouble))),
			reprotest.Variant("kind=full-jitter,double_schedule=false", reprotest.Runs(3, wsPeak(fjPeak), wsPerClient(2.45))),
			reprotest.Variant("kind=full-jitter,double_schedule=true", reprotest.Runs(3, wsPeak(fjPeak), wsPerClient(fjDouble))))
	}
	replay := func(rt string, withReplay, without []report.Run) *report.Result {
		return reprotest.Result("ws-replay", rt, reprotest.Variant("EVENTS_REPLAY=1000", withReplay), reprotest.Variant("EVENTS_REPLAY=0", without))
	}
	budget := func(rt string, t5, t10 []report.Run) *report.Result {
		return reprotest.Result("ws-budget", rt, reprotest.Variant("timeout=5s", t5), reprotest.Variant("timeout=10s", t10))
	}
	b5 := reprotest.Runs(3, wsBudget(7000, false), reprotest.ExitCode(137), reprotest.ExitAfter(5060))
	b10 := reprotest.Runs(3, wsBudget(7000, true), reprotest.ExitCode(0), reprotest.ExitAfter(7100))
	cases := []reprotest.RuleCase{
		// W1: the draining flag refuses; readiness alone accepts.
		{Name: "refuse vs accept", Claim: "W1", Want: reproduce.Reproduced, Cell: "ws_upgrades_refused_draining 38",
			Res: admission("go", reprotest.Runs(3, wsAdmission(38, 0)), reprotest.Runs(3, wsAdmission(0, 23)))},
		{Name: "refuse accepts one", Claim: "W1", Want: reproduce.Differs, Why: "refuse: upgrades accepted after readiness failed in 1/3",
			Res: admission("go", append(reprotest.Runs(2, wsAdmission(38, 0)), reprotest.Run(wsAdmission(30, 1))), reprotest.Runs(3, wsAdmission(0, 23)))},
		{Name: "race never seen", Claim: "W1", Want: reproduce.Differs, Why: "the race did not show",
			Res: admission("node", reprotest.Runs(3, wsAdmission(38, 0)), reprotest.Runs(3, wsAdmission(0, 0)))},
		{Name: "not a ws run", Claim: "W1", Want: reproduce.NotRun, Why: "variant UPGRADES_WHILE_DRAINING=accept",
			Res: reprotest.Result("ws-admission", "go", reprotest.Variant("UPGRADES_WHILE_DRAINING=refuse", reprotest.Runs(3, wsAdmission(38, 0))))},
		// W2: close mode does not retire the streams; per runtime.
		{Name: "node killed at grace", Claim: "W2", Want: reproduce.Reproduced, Cell: "exit_code 137",
			Res: retire("node", yml, nodeClose, fullOK)},
		{Name: "go exits by itself", Claim: "W2", Want: reproduce.Reproduced, Cell: "exit_after_ms 28",
			Res: retire("go", yml, goClose, fullOK)},
		{Name: "node exits cleanly", Claim: "W2", Want: reproduce.Differs, Why: "(exit code not 137) in 3/3",
			Res: retire("node", yml, reprotest.Runs(3, wsCloses(200, 0, 200, 40, 50), reprotest.ExitCode(0), reprotest.ExitAfter(45)), fullOK)},
		{Name: "node streams closed early", Claim: "W2", Want: reproduce.Differs, Why: "> 1 s before the kill",
			Res: retire("node", yml, reprotest.Runs(3, wsCloses(200, 0, 200, 40, 50), reprotest.ExitCode(137), reprotest.ExitAfter(6068)), fullOK)},
		{Name: "go killed", Claim: "W2", Want: reproduce.Differs, Why: "Go's Shutdown neither closes",
			Res: retire("go", yml, nodeClose, fullOK)},
		{Name: "close sends 1001", Claim: "W2", Want: reproduce.Differs, Why: "got a 1001 in 3/3",
			Res: retire("node", yml, reprotest.Runs(3, wsCloses(200, 200, 0, 500, 950), reprotest.ExitCode(137), reprotest.ExitAfter(6068)), fullOK)},
		// W3: 1001 to everyone, spread over the window, raw peers terminated.
		{Name: "spread and deadline", Claim: "W3", Want: reproduce.Reproduced, Cell: "ws_terminated 5",
			Res: retire("node", yml, nodeClose, fullOK)},
		{Name: "a spike", Claim: "W3", Want: reproduce.Differs, Why: "median close time outside 20–80%",
			Res: retire("go", yml, goClose, reprotest.Runs(3, wsCloses(200, 200, 0, 5, 9), wsSpread(1000), wsTerminated(5), reprotest.ExitCode(0)))},
		{Name: "late closes", Claim: "W3", Want: reproduce.Differs, Why: "p95 close time past",
			Res: retire("go", yml, goClose, reprotest.Runs(3, wsCloses(200, 200, 0, 600, 2900), wsSpread(1000), wsTerminated(5), reprotest.ExitCode(0)))},
		{Name: "abnormal closes", Claim: "W3", Want: reproduce.Differs, Why: "fewer 1001 closes than clients in 3/3 runs; mode=full: 1006 closes in 3/3",
			Res: retire("go", yml, goClose, reprotest.Runs(3, wsCloses(200, 150, 50, 480, 960), wsSpread(1000), wsTerminated(5), reprotest.ExitCode(0)))},
		{Name: "raw peers not terminated", Claim: "W3", Want: reproduce.Differs, Why: "fewer than 5 peers",
			Res: retire("go", yml, goClose, reprotest.Runs(3, wsCloses(200, 200, 0, 480, 960), wsSpread(1000), wsTerminated(0), reprotest.ExitCode(0)))},
		{Name: "no raw peers in the scenario", Claim: "W3", Want: reproduce.NotRun, Why: "no raw peer",
			Res: retire("go", strings.ReplaceAll(yml, "raw_peers:", "# raw_peers:"), goClose, fullOK)},
		// W4: the storm and the double schedule.
		{Name: "immediate storms", Claim: "W4", Want: reproduce.Reproduced, Cell: "ws_peak_handshakes_per_100ms 223",
			Res: storm(223, 98, 41, 11)},
		{Name: "jitter no calmer", Claim: "W4", Want: reproduce.Differs, Why: "not higher with immediate (98) than with full-jitter (98)",
			Res: storm(98, 98, 41, 11)},
		{Name: "double schedule harmless", Claim: "W4", Want: reproduce.Differs, Why: "kind=full-jitter: median attempts per client not higher",
			Res: storm(223, 98, 41, 2.45)},
		// W5: replay closes the gap; without it the gap is reported.
		{Name: "replay vs gap", Claim: "W5", Want: reproduce.Reproduced, Cell: "ws_events_dup_rejected 300",
			Res: replay("node", reprotest.Runs(3, wsUnknown(0), wsDupRejected(300)), reprotest.Runs(3, wsUnknown(1200)))},
		{Name: "gap reported as zero loss", Claim: "W5", Want: reproduce.Differs, Why: "EVENTS_REPLAY=0: no unknown event",
			Res: replay("go", reprotest.Runs(3, wsUnknown(0), wsDupRejected(300)), reprotest.Runs(3, wsUnknown(0)))},
		{Name: "replay misses", Claim: "W5", Want: reproduce.Differs, Why: "EVENTS_REPLAY=1000: unknown events (replay missed some) in 3/3",
			Res: replay("go", reprotest.Runs(3, wsUnknown(4), wsDupRejected(300)), reprotest.Runs(3, wsUnknown(1200)))},
		// W6: the budget against the stop timeout.
		{Name: "killed vs fits", Claim: "W6", Want: reproduce.Reproduced, Cell: "timeout=5s: ws_budget_fits 0/3 true; ws_budget_ms 7000",
			Res: budget("node", b5, b10)},
		{Name: "10 s killed", Claim: "W6", Want: reproduce.Differs, Why: "timeout=10s: exit code not 0 in 3/3",
			Res: budget("go", b5, reprotest.Runs(3, wsBudget(7000, true), reprotest.ExitCode(137), reprotest.ExitAfter(10050)))},
		{Name: "5 s survives", Claim: "W6", Want: reproduce.Differs, Why: "timeout=5s: not killed",
			Res: budget("go", reprotest.Runs(3, wsBudget(7000, false), reprotest.ExitCode(0), reprotest.ExitAfter(4900)), b10)},
		{Name: "budget not recorded", Claim: "W6", Want: reproduce.Differs, Why: "budget fits (or not recorded) in 3/3",
			Res: budget("go", reprotest.Runs(3, reprotest.ExitCode(137), reprotest.ExitAfter(5060), wsSet(func(w *wsmetrics.Metrics) { w.WSBudgetMs = reprotest.FloatP(7000) })), b10)},
	}
	reprotest.RunRuleCases(t, Claims.Claims, cases)
}
