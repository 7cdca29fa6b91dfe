package reproduce

import "github.com/shutdownlab/shutdownlab/report"

// SourceRig is the machine the published measurements were taken on
// (docs/claims.md, "P1–P12: HTTP shutdown").
const SourceRig = "Apple M3, Docker Desktop 29.5.2, Node v23.11.1 (`node:23-alpine`), Caddy v2.11.4; " +
	"every figure is the spread of three runs; load 20 concurrent keep-alive clients issuing 300 ms requests unless stated"

// Claim is one published measurement and how to judge it.
type Claim struct {
	// ID is "P1" .. "P12" for this package's claims, a capability's
	// letter and number for its own ("W1" .. "W6"); unique in the program.
	ID string
	// Setup and Published are the published table's text, verbatim.
	Setup, Published string
	// Scenario is the catalog scenario that measures the claim.
	Scenario string
	// Variants are the variant labels that matter, without the runtime
	// ("mode=none"); "*" when every variant does.
	Variants []string
	// Metrics are the headline metrics the rule reads.
	Metrics []string
	// Rule is the rule in words; Judge applies RuleFunc, the rule as code.
	Rule string
	// GoNote explains, when known, why the Go target differs from the
	// published Node figure; appended to a Go verdict that differs.
	GoNote string
	// RuleFunc is the rule as code: a pure function from one runtime's
	// result of Scenario (never nil: Judge answers a nil result itself)
	// to a verdict, written with Judge (NewJudge). Call Judge rather than
	// RuleFunc: Judge sets the verdict's Rule and appends GoNote.
	RuleFunc func(res *report.Result) Verdict
}

// Judge applies the claim's rule to one runtime's result of its scenario
// (see SplitRuntime). It is pure; a nil result is not_run.
func (c Claim) Judge(res *report.Result) Verdict {
	if res == nil {
		return Verdict{Status: NotRun, Rule: c.Rule, Why: "no result for scenario " + c.Scenario}
	}
	v := c.RuleFunc(res)
	v.Rule = c.Rule
	if v.Status == Differs && c.GoNote != "" && ResultRuntime(res) == "go" {
		v.Why += " — " + c.GoNote
	}
	return v
}

// coreClaims returns this package's claims, P1–P12 (HTTP shutdown), in
// order; their source is SourceRig.
func coreClaims() []Claim {
	return []Claim{
		{ID: "P1", Setup: "`none`, Node as PID 1 (no `--init`), `docker kill -s TERM`",
			Published: "still running 3 s later, 3/3; only SIGKILL ends it (exit 137)",
			Scenario:  "pid1-signal", Variants: []string{"init=false", "init=true"},
			Metrics: []string{"exit_code", "exit_after_ms", "signal_handled"},
			Rule: "init=false: no exit within the 3 s window in every run (exit NEVER) and no signal handled; " +
				"init=true (contrast): exits within the window in every run",
			GoNote: "expected: the Go runtime, as PID 1 with no handler, exits on SIGTERM with code 2 (its fallback), " +
				"where Node ignores the signal and only SIGKILL ends it",
			RuleFunc: ruleP1},
		{ID: "P2", Setup: "`none` with `--init`, signal 3 s into load",
			Published: "dies in ~300 ms; every in-flight request (20) fails with ECONNRESET",
			Scenario:  "direct-inflight", Variants: []string{"mode=none"},
			Metrics:  []string{"dropped_inflight", "inflight_at_action", "exit_after_ms"},
			Rule:     "mode=none: every run drops ≥ 1 in-flight request and exits within 1 s of the signal",
			RuleFunc: ruleP2},
		{ID: "P3", Setup: "`close` with `--init`, same load",
			Published: "0 dropped, but ~200 more requests served *after* SIGTERM on already-open keep-alive connections; the process only exits when the load stops (~3.4 s)",
			Scenario:  "direct-inflight", Variants: []string{"mode=close"},
			Metrics: []string{"dropped_inflight", "served_after_signal", "exit_after_ms"},
			Rule: "mode=close: every run drops 0 in-flight requests, serves ≥ 50 requests after the signal " +
				"(tens to hundreds) and exits ≥ 1 s after it (when the load stops, not at once), within the window",
			GoNote: "expected: Go's stock http.Server.Shutdown answers Connection: close and closes idle connections, " +
				"so the process exits once in-flight requests finish instead of serving on until the load stops",
			RuleFunc: ruleP3},
		{ID: "P4", Setup: "2 replicas behind Caddy, roll replica A under load",
			Published: "`close`: A still alive >25 s after SIGTERM, 3/3. `full`: A exits 2156–2231 ms after SIGTERM, drained in 2002–2013 ms",
			Scenario:  "roll-behind-caddy", Variants: []string{"mode=close", "mode=full"},
			Metrics: []string{"exit_after_ms", "drain_ms", "failed"},
			Rule: "mode=close: A does not exit within the 25 s window in any run (NEVER); " +
				"mode=full: A exits in every run 1.1–4.5 s after SIGTERM and drains in 1.0–4.0 s (within 2× of the published ~2.2 s / ~2.0 s)",
			GoNote: "expected in close mode: Go's stock Shutdown answers Connection: close, so Caddy's upstream " +
				"keep-alive connections do not keep A alive",
			RuleFunc: ruleP4},
		{ID: "P5", Setup: "`close`, one raw keep-alive socket, one finished request, SIGTERM at 2 s",
			Published: "server closes the idle socket ~1 ms after the signal (close() sweeps idle sockets once)",
			Scenario:  "p5-idle-socket", Variants: []string{"mode=close (or every variant)"},
			Metrics:  []string{"probe_server_closed", "probe_socket_closed_after_signal_ms"},
			Rule:     "the server closes the idle socket in every run, < 100 ms after the signal (published ~1 ms)",
			RuleFunc: ruleP5},
		{ID: "P6", Setup: "`close`, a 4 s request in flight, SIGTERM at 1 s",
			Published: "response at ~4010 ms still says `Connection: keep-alive`; socket closed only at ~10018 ms; close() returns after ~9042 ms. Socket-close time ≈ keep-alive timeout + ~1 s: 6.0 s at 5 s, 16.1 s at 15 s",
			Scenario:  "p6-inflight-socket", Variants: []string{"KEEPALIVE_MS=*"},
			Metrics: []string{"probe_response_after_start_ms", "probe_response_keepalive", "probe_socket_closed_after_response_ms"},
			Rule: "every KEEPALIVE_MS variant, every run: the response arrives 3.5–5 s after the start (the 4 s request is served), " +
				"still says Connection: keep-alive, and the socket is closed keep-alive … keep-alive + 3 s after the response " +
				"(≥ 1 s when the variant sets no KEEPALIVE_MS); close()'s own return time is not measured",
			GoNote:   "expected: Go's Shutdown marks the in-flight response Connection: close and closes the socket right after it",
			RuleFunc: ruleP6},
		{ID: "P7", Setup: "`full` against a client that ignores readiness and keeps writing",
			Published: "0 in-progress requests lost, but in 1 of 3 runs 1918 *new* requests failed, written onto sockets the sweep had just closed",
			Scenario:  "hammer-sweep", Variants: []string{"default"},
			Metrics: []string{"dropped_inflight", "failed_in_delivery_window", "failed_after_signal", "idle_close_race", "failed_after_exit"},
			Rule: "every run drops 0 in-flight requests, and in at least one run new requests fail while the process " +
				"still runs (failed_after_signal − failed_after_exit ≥ 1; published: 1 of 3 runs, so it is intermittent; " +
				"idle_close_race counts those written onto a socket the sweep closed)",
			RuleFunc: ruleP7},
		{ID: "P8", Setup: "`full`, one request that never returns (10 min)",
			Published: "`DRAIN_MS=0`: still running at 60 s, 3/3. `DRAIN_MS=5000`: exits at 5226–5270 ms with code 1, logging the abandoned in-flight count",
			Scenario:  "deadline", Variants: []string{"DRAIN_MS=0", "DRAIN_MS=5000"},
			Metrics: []string{"exit_code", "exit_after_ms", "abandoned_inflight"},
			Rule: "DRAIN_MS=0: no exit within the 60 s window in any run (NEVER); DRAIN_MS=5000: every run exits with code 1 " +
				"5.0–7.5 s after the signal (just past the deadline) and logs ≥ 1 abandoned in-flight request",
			RuleFunc: ruleP8},
		{ID: "P9", Setup: "`full`, `--init`, `DRAIN_MS=60000`, job of 30 steps × 500 ms, `docker stop` 2 s into it",
			Published: "`-t 10`: wall 10.26 s, exit 137, 23/30 steps, no COMMIT. `-t 20`: wall 13.37 s, exit 0, 30/30, COMMIT. The host's default StopTimeout (1 s there) left 6/30",
			Scenario:  "stop-timeout-job", Variants: []string{"timeout=10s", "timeout=20s"},
			Metrics: []string{"exit_code", "exit_after_ms", "job_steps", "job_committed"},
			Rule: "timeout=10s: every run is killed (exit 137) 9.5–12 s after docker stop with 10–29 of 30 steps and no COMMIT; " +
				"timeout=20s: every run exits 0 10–20 s after docker stop with 30/30 steps and COMMIT " +
				"(the default-StopTimeout case is not measured)",
			RuleFunc: ruleP9},
		{ID: "P10", Setup: "2 replicas behind Caddy, active health checks (`/readyz`, 1 s), **no** retries, roll one, GETs",
			Published: "residual 503s in every mode, even with a pre-stop wait",
			Scenario:  "caddy-no-retry", Variants: []string{"mode=none", "mode=close", "mode=full"},
			Metrics:  []string{"failed", "by_class.http_503", "by_class.http_502"},
			Rule:     "every mode (none, close, full): the median run has ≥ 1 failed GET (503s and 502s shown separately)",
			RuleFunc: ruleP10},
		{ID: "P11", Setup: "same, plus `lb_try_duration 5s`, `lb_try_interval 100ms`",
			Published: "zero failed GETs in every mode, including `none`",
			Scenario:  "caddy-retry", Variants: []string{"mode=none", "mode=close", "mode=full"},
			Metrics:  []string{"failed"},
			Rule:     "every mode (none, close, full), every run: 0 failed GETs",
			RuleFunc: ruleP11},
		{ID: "P12", Setup: "same retrying rig, POSTs that write a row before their work",
			Published: "~10 POSTs per run came back 502 and **every one had written its row**; graceful shutdown makes that zero. p99 515–533 ms with the rolled replica vs 332–338 ms steady (~55% regression)",
			Scenario:  "caddy-post", Variants: []string{"mode=none", "mode=close", "mode=full"},
			Metrics: []string{"ghost_writes", "lost_writes", "p99_vs_baseline", "baseline_p99_ms"},
			Rule: "mode=none and mode=close: the median run has ≥ 1 ghost write; mode=full: 0 ghost writes in every run; " +
				"0 lost writes everywhere; mode=full: median p99_vs_baseline ≥ 1.2 (the roll costs latency; published ~1.55×)",
			RuleFunc: ruleP12},
	}
}
