package cluster

import "github.com/shutdownlab/shutdownlab/reproduce"

// ClaimsSource is where C1–C4 were published (docs/claims.md, "C1–C4").
const ClaimsSource = "a published article on a Node.js gateway built on `node:cluster`; " +
	"the article gives mechanisms and shapes (a 10 s teardown timeout), not a rig or figures"

// Claims are the cluster and hostile-client claims C1–C4, in order, as
// the capabilities list installs them (reproduce.InstallClaims). Setup
// and Published are the claim's published text, verbatim, split at the
// claim's subject. Their scenarios run the Node cluster target
// (target.program cluster), so Go is not applicable (reproduce.Plan).
var Claims = reproduce.ClaimSet{
	Source: ClaimsSource,
	Claims: []reproduce.Claim{
		{ID: "C1", Setup: "Blind resurrection",
			Published: "on SIGTERM the workers exit and the primary immediately forks replacements, until the grace period's " +
				"SIGKILL ends everything (exit 137) and severs the connections in flight.",
			Scenario: "cluster-blind", Variants: []string{"duration=5s", "duration=14s"},
			Metrics: []string{"forks_after_signal", "exit_code", "exit_after_ms", "ended_by_engine_kill", "severed_at_kill"},
			Rule: "duration=5s (the load ends 3 s after the signal, the workers exit): every run forks ≥ 1 worker after the signal " +
				"and is ended by the engine's SIGKILL (exit 137, ended_by_engine_kill); " +
				"duration=14s (load through the SIGKILL): every run is ended by the engine's SIGKILL (exit 137) and " +
				"≥ 1 request is severed at the kill",
			RuleFunc: ruleC1},
		{ID: "C2", Setup: "A state-gated supervisor",
			Published: "re-forks a crashed worker (killed with SIGKILL) within milliseconds, but on SIGTERM broadcasts shutdown " +
				"over IPC, lets the workers drain, forks nothing, and exits 0 when the pool is empty.",
			Scenario: "cluster-gated", Variants: []string{"default"},
			Metrics: []string{"crashes", "worker_exits_sigkill", "resurrection_ms", "forks_after_signal", "exit_code",
				"exit_after_ms", "ended_by_self"},
			Rule: "every run: ≥ 1 crash by SIGKILL before the signal, re-forked < 100 ms later (resurrection_ms); " +
				"0 forks after the signal; the process ends itself (ended_by_self) with exit 0 within the 10 s grace period",
			RuleFunc: ruleC2},
		{ID: "C3", Setup: "A client trickling its request at 1 byte/s",
			Published: "keeps a plain close waiting indefinitely; a hard teardown timeout (10 s in the article) ends it, " +
				"with an exit code and a log line that says it forced the exit.",
			Scenario: "cluster-teardown", Variants: []string{"TEARDOWN_MS=0", "TEARDOWN_MS=4000"},
			Metrics: []string{"exit_code", "exit_after_ms", "ended_by_engine_kill", "forced_exit", "forced_exit_ms",
				"ended_by_self", "severed_at_kill"},
			Rule: "TEARDOWN_MS=0 (plain close): every run waits until the grace period's SIGKILL (exit 137, ended_by_engine_kill, " +
				"no forced_exit); TEARDOWN_MS=4000 (4 s, not the article's 10 s, to fit the 8 s grace period): every run logs " +
				"forced_exit 4.0–5.0 s after the signal and ends itself (ended_by_self) with a non-zero exit code other than 137. " +
				"Not judged here: the Go row (scenario slow-client)",
			RuleFunc: ruleC3},
		{ID: "C4", Setup: "Proxying with `pipe()`",
			Published: "leaks one half-open backend socket per client that drops mid-request (file descriptors grow with aborted " +
				"requests, and the process does not exit on a clean shutdown while they are open); `pipeline()` leaks none.",
			Scenario: "cluster-proxy", Variants: []string{"path=/proxy?ms=60000", "path=/proxy?ms=300"},
			Metrics: []string{"fd_growth_per_abort", "fds_at_signal", "forced_exit", "exit_code", "exit_after_ms"},
			Rule: "backend holding the request 60 s (path=/proxy?ms=60000): PROXY_IMPL=pipe: every run grows ≥ 0.5 fd per aborted " +
				"request and does not exit on its clean shutdown (the 3 s teardown timeout forces it: forced_exit, exit ≠ 0); " +
				"PROXY_IMPL=pipeline: every run grows < 0.2 fd per abort and exits 0 without forced_exit. " +
				"Not judged: the 300 ms backend (path=/proxy?ms=300), which closes pipe's sockets itself; shown",
			RuleFunc: ruleC4},
	},
}
