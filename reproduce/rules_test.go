package reproduce

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/report"
)

// claimByID returns the claim with id from the table.
func claimByID(t *testing.T, id string) Claim {
	t.Helper()
	cs, err := Select([]string{id})
	if err != nil || len(cs) != 1 {
		t.Fatalf("Select(%s) = %v, %v", id, cs, err)
	}
	return cs[0]
}

// ruleCase is one synthetic result and the verdict it must get.
type ruleCase struct {
	name  string
	claim string
	res   *report.Result
	probe bool   // the probe metrics exist (fakeProbe) rather than not (noProbe)
	want  Status // expected status
	why   string // substring of Verdict.Why ("" = no check)
	cell  string // substring of Verdict.Measured ("" = no check)
}

func TestRules(t *testing.T) {
	p1Node := result("pid1-signal", "node",
		v("init=false", runs(3, neverExits(), handled(false))),
		v("init=true", runs(3, exitCode(143), exitAfter(40), handled(false))))
	p1Go := result("pid1-signal", "go",
		v("init=false", runs(3, exitCode(2), exitAfter(12), handled(false))),
		v("init=true", runs(3, exitCode(2), exitAfter(15), handled(false))))
	direct := func(rt string, none, closeRuns []report.Run) *report.Result {
		return result("direct-inflight", rt, v("mode=none", none), v("mode=close", closeRuns),
			v("mode=full", runs(3, dropped(0), exitAfter(400))))
	}
	noneOK := runs(3, dropped(20), inflight(20), exitAfter(310))
	closeOK := runs(3, dropped(0), served(190), exitAfter(3100))
	closeGo := runs(3, dropped(0), served(3), exitAfter(320))
	caddyRoll := func(rt string, closeRuns []report.Run) *report.Result {
		return result("roll-behind-caddy", rt, v("mode=close", closeRuns),
			v("mode=full", runs(3, exitAfter(2200), drain(2005), failed(0))))
	}
	caddy := func(sc string, none, cl, full []report.Run) *report.Result {
		return result(sc, "node", v("mode=none", none), v("mode=close", cl), v("mode=full", full))
	}
	p5 := func(rt string, rs []report.Run) *report.Result { return result("p5-idle-socket", rt, v("default", rs)) }
	// A steady-state baseline variant has no action to probe: not judged.
	baseline := v("baseline", runs(3))
	for i := range baseline.Runs {
		baseline.Runs[i].Meta.Baseline = true
	}
	p6ok := func(ka float64) []report.Run {
		return runs(3, probe("probe_response_after_start_ms", 4010), probe("probe_response_keepalive", 1),
			probe("probe_socket_closed_after_response_ms", ka+1008))
	}
	p6go := runs(3, probe("probe_response_after_start_ms", 4003), probe("probe_response_keepalive", 0),
		probe("probe_socket_closed_after_response_ms", 1))
	cases := []ruleCase{
		// P1: Node runs on as PID 1; Go exits 2 (differs, with the reason).
		{name: "node runs on", claim: "P1", res: p1Node, want: Reproduced, cell: "init=false: exit_code NEVER 3/3"},
		{name: "go exits 2", claim: "P1", res: p1Go, want: Differs, why: "Go runtime"},
		{name: "init variant missing", claim: "P1", res: result("pid1-signal", "node", v("init=false", runs(3)))},
		{name: "exited once", claim: "P1", want: Differs, why: "exited within the window in 1/3",
			res: result("pid1-signal", "node", v("init=false", runs(2), runs(1, exitCode(137), exitAfter(900))), v("init=true", runs(3, exitCode(143))))},
		// P2: none drops in-flight requests and dies fast.
		{name: "none drops", claim: "P2", res: direct("node", noneOK, closeOK), want: Reproduced, cell: "dropped_inflight 20"},
		{name: "none keeps requests", claim: "P2", res: direct("node", runs(3, dropped(0), inflight(20), exitAfter(310)), closeOK), want: Differs, why: "dropped no in-flight request in 3/3"},
		{name: "none slow to exit", claim: "P2", res: direct("node", runs(3, dropped(20), inflight(20), exitAfter(2500)), closeOK), want: Differs, why: "within 1 s"},
		{name: "no valid run", claim: "P2", res: result("direct-inflight", "node", v("mode=none", []report.Run{{Name: "run-001", Reason: "target never ready"}})), want: NotRun, why: "no valid run"},
		// P3: close serves on and exits late on Node; Go exits at once.
		{name: "close serves on", claim: "P3", res: direct("node", noneOK, closeOK), want: Reproduced},
		{name: "go close exits at once", claim: "P3", res: direct("go", noneOK, closeGo), want: Differs, why: "Connection: close"},
		{name: "close never exits", claim: "P3", res: direct("node", noneOK, runs(3, dropped(0), served(400))), want: Differs, why: "or never"},
		// P4: close never exits behind Caddy; full exits after ~2.2 s.
		{name: "node roll", claim: "P4", res: caddyRoll("node", runs(3, neverExits(), failed(0))), want: Reproduced},
		{name: "go close exits", claim: "P4", res: caddyRoll("go", runs(3, exitAfter(350), failed(0))), want: Differs, why: "upstream"},
		{name: "full missing", claim: "P4", res: result("roll-behind-caddy", "node", v("mode=close", runs(3))), want: NotRun, why: "mode=full"},
		// P5: the probe metrics, present or not yet computed.
		{name: "idle socket closed at once", claim: "P5", probe: true, want: Reproduced,
			res: p5("node", runs(3, probe("probe_server_closed", 1), probe("probe_socket_closed_after_signal_ms", 1.2)))},
		{name: "idle socket kept", claim: "P5", probe: true, want: Differs, why: "did not close the socket in 3/3",
			res: p5("node", runs(3, probe("probe_server_closed", 0), probeNever("probe_socket_closed_after_signal_ms")))},
		{name: "baseline variant not judged", claim: "P5", probe: true, want: Reproduced,
			res: result("p5-idle-socket", "node", v("default", runs(3, probe("probe_server_closed", 1), probe("probe_socket_closed_after_signal_ms", 1.2))), baseline)},
		{name: "probe metrics not built", claim: "P5", want: NotRun, why: "not computed by this build",
			res: p5("node", runs(3))},
		// P6: keep-alive response, socket closed ≈ keep-alive + 1 s.
		{name: "keepalive variants", claim: "P6", probe: true, want: Reproduced,
			res: result("p6-inflight-socket", "node", v("KEEPALIVE_MS=5000", p6ok(5000)), v("KEEPALIVE_MS=15000", p6ok(15000)))},
		{name: "wrong keepalive", claim: "P6", probe: true, want: Differs, why: "KEEPALIVE_MS=15000: socket closed outside 15000–18000 ms",
			res: result("p6-inflight-socket", "node", v("KEEPALIVE_MS=5000", p6ok(5000)), v("KEEPALIVE_MS=15000", p6ok(5000)))},
		{name: "go closes after response", claim: "P6", probe: true, want: Differs, why: "marks the in-flight response",
			res: result("p6-inflight-socket", "go", v("KEEPALIVE_MS=5000", p6go))},
		{name: "probe not built", claim: "P6", want: NotRun, why: "probe_response_after_start_ms",
			res: result("p6-inflight-socket", "node", v("KEEPALIVE_MS=5000", runs(3)))},
		// P7: no in-flight loss, new requests fail in some run.
		{name: "one run of new failures", claim: "P7", want: Reproduced,
			res: result("hammer-sweep", "node", v("default", runs(2, dropped(0), failedAfter(0)), runs(1, dropped(0), failedAfter(1930), failedAfterExit(12))))},
		{name: "failures only after exit", claim: "P7", want: Differs, why: "no new request failed",
			res: result("hammer-sweep", "node", v("default", runs(3, dropped(0), failedAfter(40), failedAfterExit(40))))},
		{name: "in-flight lost", claim: "P7", want: Differs, why: "in-flight requests dropped in 1/3",
			res: result("hammer-sweep", "node", v("default", runs(2, dropped(0), failedAfter(5)), runs(1, dropped(3), failedAfter(5))))},
		// P8: no deadline never exits; 5 s deadline exits 1.
		{name: "deadline", claim: "P8", want: Reproduced,
			res: result("deadline", "node", v("DRAIN_MS=0", runs(3)), v("DRAIN_MS=5000", runs(3, exitCode(1), exitAfter(5240), abandoned(1))))},
		{name: "deadline exits 0", claim: "P8", want: Differs, why: "exit code not 1 in 3/3",
			res: result("deadline", "node", v("DRAIN_MS=0", runs(3)), v("DRAIN_MS=5000", runs(3, exitCode(0), exitAfter(5240), abandoned(1))))},
		{name: "deadline variant missing", claim: "P8", want: NotRun, why: "DRAIN_MS=5000",
			res: result("deadline", "node", v("DRAIN_MS=0", runs(3)))},
		// P9: -t 10 kills the job, -t 20 lets it commit.
		{name: "stop timeouts", claim: "P9", want: Reproduced,
			res: result("stop-timeout-job", "node", v("timeout=10s", runs(3, exitCode(137), exitAfter(10260), steps(23), committed(false))),
				v("timeout=20s", runs(3, exitCode(0), exitAfter(13370), steps(30), committed(true))))},
		{name: "-t 10 commits", claim: "P9", want: Differs, why: "timeout=10s: exit code not 137",
			res: result("stop-timeout-job", "node", v("timeout=10s", runs(3, exitCode(0), exitAfter(9800), steps(30), committed(true))),
				v("timeout=20s", runs(3, exitCode(0), exitAfter(13370), steps(30), committed(true))))},
		// P10: residual failures in every mode without retries.
		{name: "residual 503s", claim: "P10", want: Reproduced, cell: "by_class.http_503",
			res: caddy("caddy-no-retry", runs(3, failed(12, "http_502")), runs(3, failed(6, "http_503")), runs(3, failed(2, "http_503")))},
		{name: "full clean", claim: "P10", want: Differs, why: "mode=full: the median run has no failed GET",
			res: caddy("caddy-no-retry", runs(3, failed(12, "http_502")), runs(3, failed(6, "http_503")), runs(3, failed(0)))},
		// P11: retries hide everything.
		{name: "no failures", claim: "P11", want: Reproduced, res: caddy("caddy-retry", runs(3, failed(0)), runs(3, failed(0)), runs(3, failed(0)))},
		{name: "none fails", claim: "P11", want: Differs, why: "mode=none: failed GETs in 1/3",
			res: caddy("caddy-retry", append(runs(2, failed(0)), mkRun(failed(1, "reset"))), runs(3, failed(0)), runs(3, failed(0)))},
		// P12: ghost writes unless graceful; p99 regression.
		{name: "ghost writes", claim: "P12", want: Reproduced,
			res: caddy("caddy-post", runs(3, ghosts(10), p99Ratio(1.6)), runs(3, ghosts(9), p99Ratio(1.5)), runs(3, ghosts(0), p99Ratio(1.55)))},
		{name: "full ghosts", claim: "P12", want: Differs, why: "mode=full: ghost writes in 3/3",
			res: caddy("caddy-post", runs(3, ghosts(10), p99Ratio(1.6)), runs(3, ghosts(9), p99Ratio(1.5)), runs(3, ghosts(2), p99Ratio(1.55)))},
		{name: "lost writes", claim: "P12", want: Differs, why: "LOST WRITES",
			res: caddy("caddy-post", runs(3, ghosts(10), lost(1), p99Ratio(1.6)), runs(3, ghosts(9), p99Ratio(1.5)), runs(3, ghosts(0), p99Ratio(1.55)))},
		{name: "no baseline", claim: "P12", want: Differs, why: "p99_vs_baseline",
			res: caddy("caddy-post", runs(3, ghosts(10)), runs(3, ghosts(9)), runs(3, ghosts(0)))},
	}
	runRuleCases(t, cases)
}

// runRuleCases judges each case's result by its claim and checks the
// status, the rule, and the why and measured substrings.
func runRuleCases(t *testing.T, cases []ruleCase) {
	for _, tc := range cases {
		t.Run(tc.claim+"/"+tc.name, func(t *testing.T) {
			if tc.probe {
				fakeProbe(t)
			} else {
				noProbe(t)
			}
			want := tc.want
			if want == "" {
				want = NotRun
			}
			c := claimByID(t, tc.claim)
			got := c.Judge(tc.res)
			if got.Status != want {
				t.Fatalf("status %s, want %s\nwhy: %s\nmeasured: %s", got.Status, want, got.Why, got.Measured)
			}
			if got.Rule != c.Rule || got.Rule == "" {
				t.Errorf("rule %q, want the claim's %q", got.Rule, c.Rule)
			}
			if !strings.Contains(got.Why, tc.why) {
				t.Errorf("why %q, want it to contain %q", got.Why, tc.why)
			}
			if !strings.Contains(got.Measured, tc.cell) {
				t.Errorf("measured %q, want it to contain %q", got.Measured, tc.cell)
			}
			if want == Reproduced && got.Why != "" {
				t.Errorf("reproduced with why %q", got.Why)
			}
		})
	}
}

// Every claim has its published text, a scenario, metrics and a rule, and
// a nil result is not_run.
func TestClaimsTable(t *testing.T) {
	cs := Claims()
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
		if c.ID != id || c.Setup == "" || c.Published == "" || c.Scenario == "" || c.Rule == "" || len(c.Metrics) == 0 || c.rule == nil {
			t.Errorf("claim %d incomplete: %+v", i, c)
		}
		if v := c.Judge(nil); v.Status != NotRun {
			t.Errorf("%s: Judge(nil) = %s", c.ID, v.Status)
		}
	}
	if _, err := Select([]string{"p2", " P5"}); err != nil {
		t.Errorf("Select(p2, P5): %v", err)
	}
	if _, err := Select([]string{"P13"}); err == nil {
		t.Error("Select(P13): no error")
	}
	if cs, err := Select([]string{"w3", "W1"}); err != nil || len(cs) != 2 || cs[0].ID != "W1" || cs[1].ID != "W3" {
		t.Errorf("Select(w3, W1) = %v, %v; want W1, W3 in table order", cs, err)
	}
	if _, err := Select([]string{"W7"}); err == nil || !strings.Contains(err.Error(), "W1 .. W6") {
		t.Errorf("Select(W7): error %v, want one naming W1 .. W6", err)
	}
	if cs, err := Select([]string{"c4", "C1"}); err != nil || len(cs) != 2 || cs[0].ID != "C1" || cs[1].ID != "C4" {
		t.Errorf("Select(c4, C1) = %v, %v; want C1, C4 in table order", cs, err)
	}
	if _, err := Select([]string{"C5"}); err == nil || !strings.Contains(err.Error(), "C1 .. C4") {
		t.Errorf("Select(C5): error %v, want one naming C1 .. C4", err)
	}
}
