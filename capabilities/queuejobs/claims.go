package queuejobs

import "github.com/shutdownlab/shutdownlab/reproduce"

// ClaimsSource is where J1–J5 were published (docs/claims.md, "J1–J5").
const ClaimsSource = "a published article on Kubernetes graceful shutdown (in Portuguese) showing a 4-minute " +
	"reconciliation batch cut mid-way by SIGKILL; it gives mechanisms (30 s grace periods), not a rig or figures"

// Claims are the background-job claims J1–J5, in order, as the
// capabilities list installs them (reproduce.InstallClaims). Setup and
// Published are the claim's published text, split at the claim's
// subject. Their scenarios run the Go target's queue worker (load.kind
// jobs), so Node is not applicable (reproduce.Plan).
var Claims = reproduce.ClaimSet{
	Source: ClaimsSource,
	Claims: []reproduce.Claim{
		{ID: "J1", Setup: "SIGKILL at the end of the grace period",
			Published: "cuts a job between steps or mid-step: no handler, no finally, no log flush. " +
				"With non-idempotent steps the retry applies the completed steps again.",
			Scenario: "job-retry", Variants: []string{"idempotent=false", "idempotent=true"},
			Metrics: []string{"exit_code", "final_log", "jobs_abandoned", "jobs_steps_twice", "jobs_steps_missing", "jobs_completed_handover"},
			Rule: "both variants: every run of the acted-on replica ends by SIGKILL (exit 137) without its final log line, " +
				"with ≥ 1 job run left without an end (jobs_abandoned) and no completed job missing a step; " +
				"idempotent=false: every run has ≥ 1 job with a step applied twice (the rescued retry); " +
				"idempotent=true: no run has a step applied twice",
			RuleFunc: ruleJ1},
		{ID: "J2", Setup: "A cooperative worker (stop reserving → finish within its deadline or abort at the next checkpoint → return the job)",
			Published: "loses no job and applies no step twice; the other replica resumes the returned job.",
			Scenario:  "job-modes", Variants: []string{"mode=full"},
			Metrics: []string{"jobs_inserted", "jobs_completed_once", "jobs_completed_handover", "jobs_running", "jobs_waiting",
				"jobs_steps_twice", "jobs_steps_missing", "job_handover_ms", "exit_code", "final_log"},
			Rule: "mode=full: every run completes every inserted job (completed once + after a hand-over = inserted; none running, " +
				"waiting, discarded, cancelled or missing), ≥ 1 after a hand-over to the other replica, no step applied twice, " +
				"no step missing, and the acted-on replica exits 0 with its final log line. Not judged: none and close (shown)",
			RuleFunc: ruleJ2},
		{ID: "J3", Setup: "The whole shutdown has one budget",
			Published: "a drain deadline equal to the grace period (30 s / 30 s) lets SIGKILL arrive before the final log; " +
				"the process must exit by itself, with an exit code and a log line saying what it cut, before the orchestrator kills it.",
			Scenario: "job-budget", Variants: []string{"DRAIN_MS=10000", "DRAIN_MS=7000"},
			Metrics: []string{"budget_fits", "exit_code", "exit_after_ms", "final_log", "jobs_abandoned"},
			Rule: "DRAIN_MS=10000 (= the 10 s grace period, scaled from 30 s / 30 s): the audit says it does not fit and every run " +
				"is killed (exit 137) without its final log line; DRAIN_MS=7000: the audit says it fits and every run exits " +
				"before the grace period with an exit code other than 137 and its final log line, having cut ≥ 1 job",
			RuleFunc: ruleJ3},
		{ID: "J4", Setup: "Order matters",
			Published: "closing the database pool before in-flight requests and jobs finish turns answers that would have been 200 " +
				"into 500s and completions into failures.",
			Scenario: "job-pool-order", Variants: []string{"POOL_CLOSE=last", "POOL_CLOSE=first"},
			Metrics: []string{"dropped_inflight", "jobs_inserted", "jobs_completed_once", "jobs_completed_handover", "exit_code"},
			Rule: "POOL_CLOSE=last: every run answers every /db request in flight at the signal (dropped_inflight 0) and completes " +
				"every job; POOL_CLOSE=first: every run fails ≥ 1 request in flight at the signal (their 500s) and completes fewer " +
				"jobs than inserted. Not judged: requests refused after the listener closed (one replica, no pre-stop: shown)",
			RuleFunc: ruleJ4},
		{ID: "J5", Setup: "A second signal",
			Published: "must not restart the drain.",
			Scenario:  "job-second-signal", Variants: []string{"REPEAT_SIGNAL=ignore", "REPEAT_SIGNAL=restart"},
			Metrics: []string{"exit_code", "exit_after_ms", "final_log"},
			Rule: "REPEAT_SIGNAL=ignore (the second SIGTERM 4 s after the first is ignored): every run exits " +
				"before the 10 s grace period with an exit code other than 137 and its final log line; REPEAT_SIGNAL=restart (the drain re-armed): every run " +
				"is killed at the grace period (exit 137) without its final log line",
			RuleFunc: ruleJ5},
	},
}
