package reproduce_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/reproduce"
	"github.com/shutdownlab/shutdownlab/reproduce/reprotest"
)

func TestRules(t *testing.T) {
	p1Node := reprotest.Result("pid1-signal", "node",
		reprotest.Variant("init=false", reprotest.Runs(3, reprotest.NeverExits(), reprotest.Handled(false))),
		reprotest.Variant("init=true", reprotest.Runs(3, reprotest.ExitCode(143), reprotest.ExitAfter(40), reprotest.Handled(false))))
	p1Go := reprotest.Result("pid1-signal", "go",
		reprotest.Variant("init=false", reprotest.Runs(3, reprotest.ExitCode(2), reprotest.ExitAfter(12), reprotest.Handled(false))),
		reprotest.Variant("init=true", reprotest.Runs(3, reprotest.ExitCode(2), reprotest.ExitAfter(15), reprotest.Handled(false))))
	direct := func(rt string, none, closeRuns []report.Run) *report.Result {
		return reprotest.Result("direct-inflight", rt, reprotest.Variant("mode=none", none), reprotest.Variant("mode=close", closeRuns),
			reprotest.Variant("mode=full", reprotest.Runs(3, reprotest.Dropped(0), reprotest.ExitAfter(400))))
	}
	noneOK := reprotest.Runs(3, reprotest.Dropped(20), reprotest.Inflight(20), reprotest.ExitAfter(310))
	closeOK := reprotest.Runs(3, reprotest.Dropped(0), reprotest.Served(190), reprotest.ExitAfter(3100))
	closeGo := reprotest.Runs(3, reprotest.Dropped(0), reprotest.Served(3), reprotest.ExitAfter(320))
	caddyRoll := func(rt string, closeRuns []report.Run) *report.Result {
		return reprotest.Result("roll-behind-caddy", rt, reprotest.Variant("mode=close", closeRuns),
			reprotest.Variant("mode=full", reprotest.Runs(3, reprotest.ExitAfter(2200), reprotest.Drain(2005), reprotest.Failed(0))))
	}
	caddy := func(sc string, none, cl, full []report.Run) *report.Result {
		return reprotest.Result(sc, "node", reprotest.Variant("mode=none", none), reprotest.Variant("mode=close", cl), reprotest.Variant("mode=full", full))
	}
	p5 := func(rt string, rs []report.Run) *report.Result {
		return reprotest.Result("p5-idle-socket", rt, reprotest.Variant("default", rs))
	}
	// A steady-state baseline variant has no action to probe: not judged.
	baseline := reprotest.Variant("baseline", reprotest.Runs(3))
	for i := range baseline.Runs {
		baseline.Runs[i].Meta.Baseline = true
	}
	p6ok := func(ka float64) []report.Run {
		return reprotest.Runs(3, probe("probe_response_after_start_ms", 4010), probe("probe_response_keepalive", 1),
			probe("probe_socket_closed_after_response_ms", ka+1008))
	}
	p6go := reprotest.Runs(3, probe("probe_response_after_start_ms", 4003), probe("probe_response_keepalive", 0),
		probe("probe_socket_closed_after_response_ms", 1))
	cases := []reprotest.RuleCase{
		// P1: Node runs on as PID 1; Go exits 2 (differs, with the reason).
		{Name: "node runs on", Claim: "P1", Res: p1Node, Want: reproduce.Reproduced, Cell: "init=false: exit_code NEVER 3/3"},
		{Name: "go exits 2", Claim: "P1", Res: p1Go, Want: reproduce.Differs, Why: "Go runtime"},
		{Name: "init variant missing", Claim: "P1", Res: reprotest.Result("pid1-signal", "node", reprotest.Variant("init=false", reprotest.Runs(3)))},
		{Name: "exited once", Claim: "P1", Want: reproduce.Differs, Why: "exited within the window in 1/3",
			Res: reprotest.Result("pid1-signal", "node", reprotest.Variant("init=false", reprotest.Runs(2), reprotest.Runs(1, reprotest.ExitCode(137), reprotest.ExitAfter(900))), reprotest.Variant("init=true", reprotest.Runs(3, reprotest.ExitCode(143))))},
		// P2: none drops in-flight requests and dies fast.
		{Name: "none drops", Claim: "P2", Res: direct("node", noneOK, closeOK), Want: reproduce.Reproduced, Cell: "dropped_inflight 20"},
		{Name: "none keeps requests", Claim: "P2", Res: direct("node", reprotest.Runs(3, reprotest.Dropped(0), reprotest.Inflight(20), reprotest.ExitAfter(310)), closeOK), Want: reproduce.Differs, Why: "dropped no in-flight request in 3/3"},
		{Name: "none slow to exit", Claim: "P2", Res: direct("node", reprotest.Runs(3, reprotest.Dropped(20), reprotest.Inflight(20), reprotest.ExitAfter(2500)), closeOK), Want: reproduce.Differs, Why: "within 1 s"},
		{Name: "no valid run", Claim: "P2", Res: reprotest.Result("direct-inflight", "node", reprotest.Variant("mode=none", []report.Run{{Name: "run-001", Reason: "target never ready"}})), Want: reproduce.NotRun, Why: "no valid run"},
		// P3: close serves on and exits late on Node; Go exits at once.
		{Name: "close serves on", Claim: "P3", Res: direct("node", noneOK, closeOK), Want: reproduce.Reproduced},
		{Name: "go close exits at once", Claim: "P3", Res: direct("go", noneOK, closeGo), Want: reproduce.Differs, Why: "Connection: close"},
		{Name: "close never exits", Claim: "P3", Res: direct("node", noneOK, reprotest.Runs(3, reprotest.Dropped(0), reprotest.Served(400))), Want: reproduce.Differs, Why: "or never"},
		// P4: close never exits behind Caddy; full exits after ~2.2 s.
		{Name: "node roll", Claim: "P4", Res: caddyRoll("node", reprotest.Runs(3, reprotest.NeverExits(), reprotest.Failed(0))), Want: reproduce.Reproduced},
		{Name: "go close exits", Claim: "P4", Res: caddyRoll("go", reprotest.Runs(3, reprotest.ExitAfter(350), reprotest.Failed(0))), Want: reproduce.Differs, Why: "upstream"},
		{Name: "full missing", Claim: "P4", Res: reprotest.Result("roll-behind-caddy", "node", reprotest.Variant("mode=close", reprotest.Runs(3))), Want: reproduce.NotRun, Why: "mode=full"},
		// P5: the probe metrics, present or not yet computed.
		{Name: "idle socket closed at once", Claim: "P5", Before: reproduce.FakeProbe, Want: reproduce.Reproduced,
			Res: p5("node", reprotest.Runs(3, probe("probe_server_closed", 1), probe("probe_socket_closed_after_signal_ms", 1.2)))},
		{Name: "idle socket kept", Claim: "P5", Before: reproduce.FakeProbe, Want: reproduce.Differs, Why: "did not close the socket in 3/3",
			Res: p5("node", reprotest.Runs(3, probe("probe_server_closed", 0), probeNever("probe_socket_closed_after_signal_ms")))},
		{Name: "baseline variant not judged", Claim: "P5", Before: reproduce.FakeProbe, Want: reproduce.Reproduced,
			Res: reprotest.Result("p5-idle-socket", "node", reprotest.Variant("default", reprotest.Runs(3, probe("probe_server_closed", 1), probe("probe_socket_closed_after_signal_ms", 1.2))), baseline)},
		{Name: "probe metrics not built", Claim: "P5", Want: reproduce.NotRun, Why: "not computed by this build",
			Res: p5("node", reprotest.Runs(3))},
		// P6: keep-alive response, socket closed ≈ keep-alive + 1 s.
		{Name: "keepalive variants", Claim: "P6", Before: reproduce.FakeProbe, Want: reproduce.Reproduced,
			Res: reprotest.Result("p6-inflight-socket", "node", reprotest.Variant("KEEPALIVE_MS=5000", p6ok(5000)), reprotest.Variant("KEEPALIVE_MS=15000", p6ok(15000)))},
		{Name: "wrong keepalive", Claim: "P6", Before: reproduce.FakeProbe, Want: reproduce.Differs, Why: "KEEPALIVE_MS=15000: socket closed outside 15000–18000 ms",
			Res: reprotest.Result("p6-inflight-socket", "node", reprotest.Variant("KEEPALIVE_MS=5000", p6ok(5000)), reprotest.Variant("KEEPALIVE_MS=15000", p6ok(5000)))},
		{Name: "go closes after response", Claim: "P6", Before: reproduce.FakeProbe, Want: reproduce.Differs, Why: "marks the in-flight response",
			Res: reprotest.Result("p6-inflight-socket", "go", reprotest.Variant("KEEPALIVE_MS=5000", p6go))},
		{Name: "probe not built", Claim: "P6", Want: reproduce.NotRun, Why: "probe_response_after_start_ms",
			Res: reprotest.Result("p6-inflight-socket", "node", reprotest.Variant("KEEPALIVE_MS=5000", reprotest.Runs(3)))},
		// P7: no in-flight loss, new requests fail in some run.
		{Name: "one run of new failures", Claim: "P7", Want: reproduce.Reproduced,
			Res: reprotest.Result("hammer-sweep", "node", reprotest.Variant("default", reprotest.Runs(2, reprotest.Dropped(0), reprotest.FailedAfter(0)), reprotest.Runs(1, reprotest.Dropped(0), reprotest.FailedAfter(1930), reprotest.FailedAfterExit(12))))},
		{Name: "failures only after exit", Claim: "P7", Want: reproduce.Differs, Why: "no new request failed",
			Res: reprotest.Result("hammer-sweep", "node", reprotest.Variant("default", reprotest.Runs(3, reprotest.Dropped(0), reprotest.FailedAfter(40), reprotest.FailedAfterExit(40))))},
		{Name: "in-flight lost", Claim: "P7", Want: reproduce.Differs, Why: "in-flight requests dropped in 1/3",
			Res: reprotest.Result("hammer-sweep", "node", reprotest.Variant("default", reprotest.Runs(2, reprotest.Dropped(0), reprotest.FailedAfter(5)), reprotest.Runs(1, reprotest.Dropped(3), reprotest.FailedAfter(5))))},
		// P8: no deadline never exits; 5 s deadline exits 1.
		{Name: "deadline", Claim: "P8", Want: reproduce.Reproduced,
			Res: reprotest.Result("deadline", "node", reprotest.Variant("DRAIN_MS=0", reprotest.Runs(3)), reprotest.Variant("DRAIN_MS=5000", reprotest.Runs(3, reprotest.ExitCode(1), reprotest.ExitAfter(5240), reprotest.Abandoned(1))))},
		{Name: "deadline exits 0", Claim: "P8", Want: reproduce.Differs, Why: "exit code not 1 in 3/3",
			Res: reprotest.Result("deadline", "node", reprotest.Variant("DRAIN_MS=0", reprotest.Runs(3)), reprotest.Variant("DRAIN_MS=5000", reprotest.Runs(3, reprotest.ExitCode(0), reprotest.ExitAfter(5240), reprotest.Abandoned(1))))},
		{Name: "deadline variant missing", Claim: "P8", Want: reproduce.NotRun, Why: "DRAIN_MS=5000",
			Res: reprotest.Result("deadline", "node", reprotest.Variant("DRAIN_MS=0", reprotest.Runs(3)))},
		// P9: -t 10 kills the job, -t 20 lets it commit.
		{Name: "stop timeouts", Claim: "P9", Want: reproduce.Reproduced,
			Res: reprotest.Result("stop-timeout-job", "node", reprotest.Variant("timeout=10s", reprotest.Runs(3, reprotest.ExitCode(137), reprotest.ExitAfter(10260), reprotest.Steps(23), reprotest.Committed(false))),
				reprotest.Variant("timeout=20s", reprotest.Runs(3, reprotest.ExitCode(0), reprotest.ExitAfter(13370), reprotest.Steps(30), reprotest.Committed(true))))},
		{Name: "-t 10 commits", Claim: "P9", Want: reproduce.Differs, Why: "timeout=10s: exit code not 137",
			Res: reprotest.Result("stop-timeout-job", "node", reprotest.Variant("timeout=10s", reprotest.Runs(3, reprotest.ExitCode(0), reprotest.ExitAfter(9800), reprotest.Steps(30), reprotest.Committed(true))),
				reprotest.Variant("timeout=20s", reprotest.Runs(3, reprotest.ExitCode(0), reprotest.ExitAfter(13370), reprotest.Steps(30), reprotest.Committed(true))))},
		// P10: residual failures in every mode without retries.
		{Name: "residual 503s", Claim: "P10", Want: reproduce.Reproduced, Cell: "by_class.http_503",
			Res: caddy("caddy-no-retry", reprotest.Runs(3, reprotest.Failed(12, "http_502")), reprotest.Runs(3, reprotest.Failed(6, "http_503")), reprotest.Runs(3, reprotest.Failed(2, "http_503")))},
		{Name: "full clean", Claim: "P10", Want: reproduce.Differs, Why: "mode=full: the median run has no failed GET",
			Res: caddy("caddy-no-retry", reprotest.Runs(3, reprotest.Failed(12, "http_502")), reprotest.Runs(3, reprotest.Failed(6, "http_503")), reprotest.Runs(3, reprotest.Failed(0)))},
		// P11: retries hide everything.
		{Name: "no failures", Claim: "P11", Want: reproduce.Reproduced, Res: caddy("caddy-retry", reprotest.Runs(3, reprotest.Failed(0)), reprotest.Runs(3, reprotest.Failed(0)), reprotest.Runs(3, reprotest.Failed(0)))},
		{Name: "none fails", Claim: "P11", Want: reproduce.Differs, Why: "mode=none: failed GETs in 1/3",
			Res: caddy("caddy-retry", append(reprotest.Runs(2, reprotest.Failed(0)), reprotest.Run(reprotest.Failed(1, "reset"))), reprotest.Runs(3, reprotest.Failed(0)), reprotest.Runs(3, reprotest.Failed(0)))},
		// P12: ghost writes unless graceful; p99 regression.
		{Name: "ghost writes", Claim: "P12", Want: reproduce.Reproduced,
			Res: caddy("caddy-post", reprotest.Runs(3, reprotest.Ghosts(10), reprotest.P99Ratio(1.6)), reprotest.Runs(3, reprotest.Ghosts(9), reprotest.P99Ratio(1.5)), reprotest.Runs(3, reprotest.Ghosts(0), reprotest.P99Ratio(1.55)))},
		{Name: "full ghosts", Claim: "P12", Want: reproduce.Differs, Why: "mode=full: ghost writes in 3/3",
			Res: caddy("caddy-post", reprotest.Runs(3, reprotest.Ghosts(10), reprotest.P99Ratio(1.6)), reprotest.Runs(3, reprotest.Ghosts(9), reprotest.P99Ratio(1.5)), reprotest.Runs(3, reprotest.Ghosts(2), reprotest.P99Ratio(1.55)))},
		{Name: "lost writes", Claim: "P12", Want: reproduce.Differs, Why: "LOST WRITES",
			Res: caddy("caddy-post", reprotest.Runs(3, reprotest.Ghosts(10), reprotest.Lost(1), reprotest.P99Ratio(1.6)), reprotest.Runs(3, reprotest.Ghosts(9), reprotest.P99Ratio(1.5)), reprotest.Runs(3, reprotest.Ghosts(0), reprotest.P99Ratio(1.55)))},
		{Name: "no baseline", Claim: "P12", Want: reproduce.Differs, Why: "p99_vs_baseline",
			Res: caddy("caddy-post", reprotest.Runs(3, reprotest.Ghosts(10)), reprotest.Runs(3, reprotest.Ghosts(9)), reprotest.Runs(3, reprotest.Ghosts(0)))},
	}
	for i := range cases {
		if cases[i].Before == nil {
			cases[i].Before = reproduce.NoProbe // the probe metrics are not computed rather than faked
		}
	}
	reprotest.RunRuleCases(t, reproduce.Claims(), cases)
}

// Every claim has its published text, a scenario, metrics and a rule, and
// a nil result is not_run.
func TestClaimsTable(t *testing.T) {
	cs := reproduce.Claims()
	if len(cs) != 27 {
		t.Fatalf("%d claims, want 27 (P1–P12, W1–W6, J1–J5, C1–C4)", len(cs))
	}
	for i, c := range cs {
		id := "P" + strconv.Itoa(i+1)
		switch {
		case i >= 23:
			id = "C" + strconv.Itoa(i-22)
		case i >= 18:
			id = "J" + strconv.Itoa(i-17)
		case i >= 12:
			id = "W" + strconv.Itoa(i-11)
		}
		if c.ID != id || c.Setup == "" || c.Published == "" || c.Scenario == "" || c.Rule == "" || len(c.Metrics) == 0 || c.RuleFunc == nil {
			t.Errorf("claim %d incomplete: %+v", i, c)
		}
		if v := c.Judge(nil); v.Status != reproduce.NotRun {
			t.Errorf("%s: Judge(nil) = %s", c.ID, v.Status)
		}
	}
	if _, err := reproduce.Select([]string{"p2", " P5"}); err != nil {
		t.Errorf("Select(p2, P5): %v", err)
	}
	if _, err := reproduce.Select([]string{"P13"}); err == nil {
		t.Error("Select(P13): no error")
	}
	if cs, err := reproduce.Select([]string{"w3", "W1"}); err != nil || len(cs) != 2 || cs[0].ID != "W1" || cs[1].ID != "W3" {
		t.Errorf("Select(w3, W1) = %v, %v; want W1, W3 in table order", cs, err)
	}
	if _, err := reproduce.Select([]string{"W7"}); err == nil || !strings.Contains(err.Error(), "W1 .. W6") {
		t.Errorf("Select(W7): error %v, want one naming W1 .. W6", err)
	}
	if cs, err := reproduce.Select([]string{"c4", "C1"}); err != nil || len(cs) != 2 || cs[0].ID != "C1" || cs[1].ID != "C4" {
		t.Errorf("Select(c4, C1) = %v, %v; want C1, C4 in table order", cs, err)
	}
	if _, err := reproduce.Select([]string{"C5"}); err == nil || !strings.Contains(err.Error(), "C1 .. C4") {
		t.Errorf("Select(C5): error %v, want one naming C1 .. C4", err)
	}
	const known = `unknown claim "Z1" (known: P1 .. P12, W1 .. W6, J1 .. J5, C1 .. C4)`
	if _, err := reproduce.Select([]string{"z1"}); err == nil || err.Error() != known {
		t.Errorf("Select(z1): error %v, want %s", err, known)
	}
}
