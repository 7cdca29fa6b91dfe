package websockets

import "github.com/shutdownlab/shutdownlab/reproduce"

// ClaimsSource is where W1–W6 were published (docs/claims.md, "W1–W6").
const ClaimsSource = "a published article on WebSocket retirement in Node with `ws`; " +
	"the article gives contracts and shapes, not a rig or figures"

// Claims are the WebSocket claims W1–W6, in order, as the capabilities
// list installs them (reproduce.InstallClaims). Setup and Published are
// the claim's published text, verbatim, split at the claim's subject.
var Claims = reproduce.ClaimSet{
	Source: ClaimsSource,
	Claims: []reproduce.Claim{
		{ID: "W1", Setup: "A retiring instance must refuse new upgrades while draining",
			Published: "full mode answers the upgrade with `503` + `Connection: close`; a server that only fails readiness still " +
				"accepts upgrades that arrive before the router stops forwarding (the race the local draining flag closes)",
			Scenario: "ws-admission", Variants: []string{"UPGRADES_WHILE_DRAINING=refuse", "UPGRADES_WHILE_DRAINING=accept"},
			Metrics: []string{"ws_upgrades_refused_draining", "ws_upgrades_accepted_after_ready_false"},
			Rule: "UPGRADES_WHILE_DRAINING=refuse: every run refuses ≥ 1 upgrade as draining and accepts none after readiness failed; " +
				"UPGRADES_WHILE_DRAINING=accept (readiness only): every run accepts ≥ 1 upgrade after readiness failed",
			RuleFunc: ruleW1},
		{ID: "W2", Setup: "Node's HTTP `server.close()` / `closeAllConnections()` do not destroy upgraded sockets",
			Published: "a server that only closes HTTP keeps running while WebSocket clients stay connected (until the grace period's SIGKILL). " +
				"Go's `Shutdown` does not wait for hijacked connections either — measure what each runtime actually does.",
			Scenario: "ws-retire", Variants: []string{"mode=close"},
			Metrics: []string{"ws_close_1001", "ws_close_1006", "ws_close_after_signal_p50_ms", "exit_code", "exit_after_ms"},
			Rule: "mode=close, every run: no client gets a 1001 (close mode does not retire the streams); " +
				"Node: the process is killed at the grace period (exit 137) and the median client close comes within 1 s of the kill " +
				"(the streams stayed open until then); Go: the process exits by itself (exit 0) before the grace period " +
				"(< 5 s of the 6 s) and its clients see 1006 (no close frame)",
			GoNote: "expected: Go's Shutdown neither closes nor waits for hijacked connections, so the process exits at once " +
				"and the streams end without a close frame",
			RuleFunc: ruleW2},
		{ID: "W3", Setup: "Planned retirement",
			Published: "sends close code 1001 to every client at a random moment inside a spread window (not a spike), and a hard " +
				"deadline terminates peers that never finish the closing handshake (a raw peer that ignores the close frame)",
			Scenario: "ws-retire", Variants: []string{"mode=full"},
			Metrics: []string{"ws_clients", "ws_close_1001", "ws_close_1006", "ws_close_other", "ws_close_after_signal_p50_ms",
				"ws_close_after_signal_p95_ms", "ws_close_spread_ms", "ws_terminated", "exit_code"},
			Rule: "mode=full, every run: ws_close_1001 ≥ ws_clients and no 1006 or other code; the closes are spread, not a spike: " +
				"p95 close time after the signal ≤ CLOSE_SPREAD_MS + 500 ms and the median between 20% and 80% of CLOSE_SPREAD_MS; " +
				"ws_terminated ≥ the scenario's load.ws.raw_peers (> 0); exit 0",
			RuleFunc: ruleW3},
		{ID: "W4", Setup: "Reconnect storm",
			Published: "if every client retries immediately, the surviving / new instance gets a burst of handshakes as it warms up; " +
				"full jitter (`random(0, min(cap, base·2^attempt))`) keeps the handshake rate within its admission capacity. " +
				"Resetting the attempt counter on every open keeps clients in the shortest window when a server accepts and then fails; " +
				"scheduling the retry from both the error and the close handler doubles the attempts.",
			Scenario: "ws-storm", Variants: []string{"*"},
			Metrics: []string{"ws_peak_handshakes_per_100ms", "ws_upgrades_per_s", "ws_upgrades_refused_capacity", "ws_attempts_per_client_mean"},
			Rule: "double_schedule=false: the median peak of handshakes per 100 ms at an instance is higher with kind=immediate than with " +
				"kind=full-jitter; per policy kind, the median attempts per client is higher with double_schedule=true than false. " +
				"Not judged: the peak against the capacity (the peak counts refused handshakes too; it and UPGRADES_PER_S are shown) " +
				"and the reset-on-open variant (not in the scenario)",
			RuleFunc: ruleW4},
		{ID: "W5", Setup: "Recovery",
			Published: "with a replay cursor the client resumes after its last sequence number and duplicates from the overlap are " +
				"rejected by event id; a bounded id cache accepts an evicted id again; without replay, missed events are reported " +
				"as an explicit gap (\"unknown\"), never as zero loss.",
			Scenario: "ws-replay", Variants: []string{"EVENTS_REPLAY=1000", "EVENTS_REPLAY=0"},
			Metrics: []string{"ws_events_unknown", "ws_events_dup_rejected", "ws_events_replayed", "ws_events_dup_accepted", "ws_events_delivered"},
			Rule: "EVENTS_REPLAY=1000: every run has 0 unknown events and ≥ 1 duplicate rejected (the overlap); " +
				"EVENTS_REPLAY=0: every run reports ≥ 1 unknown event (the gap, never zero loss). " +
				"Not judged: the evicted-id case (the dedupe cache, 1024, is not exceeded; ws_events_dup_accepted is shown)",
			RuleFunc: ruleW5},
		{ID: "W6", Setup: "Supervisor budget",
			Published: "propagation allowance + close spread + deadline must fit inside the stop timeout, or the SIGKILL lands first.",
			Scenario:  "ws-budget", Variants: []string{"timeout=5s", "timeout=10s"},
			Metrics: []string{"ws_budget_ms", "ws_budget_fits", "exit_code", "exit_after_ms"},
			Rule: "timeout=5s (budget does not fit): every run has ws_budget_fits false and is killed (exit 137) before the budget ends; " +
				"timeout=10s (fits): every run has ws_budget_fits true and exits 0 before the timeout",
			RuleFunc: ruleW6},
	},
}
