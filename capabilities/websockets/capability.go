// Package websockets is the WebSocket load as a capability (load.kind
// ws), in one place and registered once, by this package's init:
//
//   - its scenario block, load.ws (Load, its reconnect policies, defaults
//     and validation: load.go), registered with package scenarios
//     (scenarios.RegisterLoadKind), with the properties the shared checks
//     ask of it (no mix, no closed-loop clients to stagger, its stream's
//     path load.ws.path on the target);
//   - its load driver, the WebSocket load agent's container (driver.go),
//     registered with the runner (runner.RegisterLoadDriver): it tallies
//     the agent's ws lines, holds them to the ws accounting rule and
//     counts connection attempts for progress;
//   - its report capability: its input, accounting rule, catalog rows and
//     headline over wsmetrics' analysis of the driver's lines (this
//     file), installed by package capabilities' list;
//   - its section of report.md, the handshake and close plots (section.go,
//     render.go).
//
// A program gets it by importing package capabilities, the one list.
// Three parts stay outside, each for a reason: the record types of the
// agent's lines (record.WSAttempt, WSClose, WSClient, their tally and
// the accounting rule record.CheckWSAccounting, in record/ws.go) stay in
// package record, which every package imports (this one included), so
// moving them here would be an import cycle; the agent program itself
// (loadgen/ws and cmd/wsagent) stays where it is, since it is the binary
// built into its image from the embedded sources, which import record
// but none of the harness; and the target's event stream (targetapp's
// /events endpoint, and its Node twin) is part of the built-in targets,
// which every load kind drives, so the built-in protocol lists /events
// among its paths (scenarios.DefaultProtocol).
package websockets

import (
	"github.com/shutdownlab/shutdownlab/capabilities/websockets/wsmetrics"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Need is the capability's name: the ws_* metrics exist only in runs of
// the WebSocket load driver (load.kind ws).
const Need report.Need = "ws"

// Capability is the WebSocket load as a report capability: its input is
// the driver's lines of the records file (wsmetrics.Lines), its
// accounting rule counts streams instead of requests, its rows follow the
// core row job_committed, and a result whose every run is a ws load leads
// with what the long-lived clients saw (headline); behind a rolled proxy,
// the HTTP headline shows a few of its rows (headlineExtra).
var Capability = report.Capability{Part: (*wsmetrics.Metrics)(nil), Name: Need, Requirement: "load.kind ws",
	OfSpec: report.LoadKindIs(LoadKind), Has: report.LoadKindRan(Need, record.LoadKindWS),
	Finished: func(m record.Meta) bool { return m.WS() != nil },
	Rows:     rows, After: "job_committed",
	Headline:      &report.Headline{Cols: headline, Text: headlineText},
	HeadlineExtra: headlineExtra,
	Input:         func(string) (report.RunInput, error) { return &wsmetrics.Lines{}, nil },
	Accounting: func(in report.ComputeInput, _ *record.Tally) ([]error, bool) {
		if ws := linesOf(in); wsmetrics.IsRun(in.Meta, ws) {
			return wsmetrics.CheckAccounting(in.Core.Requests, ws), true
		}
		return nil, false
	},
	Compute: func(in report.ComputeInput) (any, []string) {
		return report.Computed(wsmetrics.Compute(in.Meta, linesOf(in), in.Core.StopTimeoutS))
	}}

// init registers the ws load kind with the scenarios and its driver with
// the runner: the kind exists for a program that imports this package
// (through package capabilities' list).
func init() {
	scenarios.RegisterLoadKind(LoadKind, loadKindDef)
	runner.RegisterLoadDriver(LoadKind, func() runner.LoadDriver { return &driver{} })
}

// headlineExtra are the rows the HTTP headline shows when some run has a
// value.
var headlineExtra = []string{"ws_close_1006", "ws_close_after_signal_p95_ms", "ws_restore_p99_ms", "ws_unrestored",
	"ws_peak_handshakes_per_100ms", "ws_events_unknown"}

// linesOf is the run's ws lines: nil without a run directory (Compute).
func linesOf(in report.ComputeInput) *wsmetrics.Lines {
	ws, _ := in.Input.(*wsmetrics.Lines)
	return ws
}

// Of returns the run's WebSocket metrics; nil outside a ws run.
func Of(m *report.Metrics) *wsmetrics.Metrics { return report.PartOf[wsmetrics.Metrics](m, Need) }

// row is a ws metric row: optional, present in every ws run (whatever its
// values), never compared by gate.
func row(name string, k report.Kind, null, doc string, read func(*wsmetrics.Metrics) report.Value) report.MetricDef {
	return report.PartDef(Need, name, k, null, report.CompareNone, doc, read)
}

// rows are the WebSocket metric rows (docs/metrics.md, "WebSocket runs").
var rows = []report.MetricDef{
	row("ws_clients", report.KindCount, "", "ws: clients (ws_client lines)",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSClients) }),
	row("ws_attempts", report.KindCount, "", "ws: connection attempts (ws_attempt lines)",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSAttempts) }),
	row("ws_close_1001", report.KindCount, "", "ws: closes the client did not start, code 1001 (going away)",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSClose1001) }),
	row("ws_close_1006", report.KindCount, "", "ws: closes the client did not start, no close frame (1006)",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSClose1006) }),
	row("ws_close_other", report.KindCount, "", "ws: closes the client did not start, any other code",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSCloseOther) }),
	row("ws_close_after_signal_p50_ms", report.KindMs, "n/a", "ws: median close time after t0 (closes the client did not start)",
		func(w *wsmetrics.Metrics) report.Value { return report.FloatPtrValue(w.WSCloseAfterSignalP50Ms) }),
	row("ws_close_after_signal_p95_ms", report.KindMs, "n/a", "ws: 95th percentile close time after t0",
		func(w *wsmetrics.Metrics) report.Value { return report.FloatPtrValue(w.WSCloseAfterSignalP95Ms) }),
	row("ws_close_after_signal_max_ms", report.KindMs, "n/a", "ws: last close after t0",
		func(w *wsmetrics.Metrics) report.Value { return report.FloatPtrValue(w.WSCloseAfterSignalMaxMs) }),
	row("ws_close_spread_ms", report.KindMs, "n/a", "ws: the acted-on replica's CLOSE_SPREAD_MS (n/a: unset, all at once, or not recorded)",
		func(w *wsmetrics.Metrics) report.Value { return report.FloatPtrValue(w.WSCloseSpreadMs) }),
	row("ws_terminated", report.KindCount, "n/a", "ws: peers terminated at the close deadline (ws_terminated events)",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSTerminated) }).FromLifecycleLog(),
	row("ws_upgrades_accepted_after_ready_false", report.KindCount, "n/a", "ws: upgrades the acted-on replica accepted after its readiness failed",
		func(w *wsmetrics.Metrics) report.Value { return report.IntPtrValue(w.WSAcceptedAfterReadyFalse) }),
	row("ws_upgrades_refused_draining", report.KindCount, "n/a", "ws: upgrades refused 503 draining after readiness failed",
		func(w *wsmetrics.Metrics) report.Value { return report.IntPtrValue(w.WSRefusedDraining) }),
	row("ws_upgrades_refused_capacity", report.KindCount, "n/a", "ws: upgrades refused 503 capacity after readiness failed",
		func(w *wsmetrics.Metrics) report.Value { return report.IntPtrValue(w.WSRefusedCapacity) }),
	row("ws_upgrades_refused_proxy", report.KindCount, "n/a", "ws: upgrades refused 503 without the refusal header (a proxy) after readiness failed",
		func(w *wsmetrics.Metrics) report.Value { return report.IntPtrValue(w.WSRefusedProxy) }),
	row("ws_restore_p50_ms", report.KindMs, "n/a", "ws: median time from a close to the client's next open connection",
		func(w *wsmetrics.Metrics) report.Value { return report.FloatPtrValue(w.WSRestoreP50Ms) }),
	row("ws_restore_p99_ms", report.KindMs, "n/a", "ws: 99th percentile time to restore",
		func(w *wsmetrics.Metrics) report.Value { return report.FloatPtrValue(w.WSRestoreP99Ms) }),
	row("ws_restore_max_ms", report.KindMs, "n/a", "ws: longest time to restore",
		func(w *wsmetrics.Metrics) report.Value { return report.FloatPtrValue(w.WSRestoreMaxMs) }),
	row("ws_unrestored", report.KindCount, "", "ws: closes never followed by an open connection of the client",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSUnrestored) }),
	row("ws_attempts_per_client_max", report.KindCount, "", "ws: most attempts of one client",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSAttemptsPerClientMax) }),
	row("ws_attempts_per_client_mean", report.KindRatio, "n/a", "ws: attempts per client, mean",
		func(w *wsmetrics.Metrics) report.Value { return report.FloatPtrValue(w.WSAttemptsPerClientMean) }),
	row("ws_peak_handshakes_per_100ms", report.KindCount, "n/a", "ws: most handshakes one instance answered in 100 ms, from t0",
		func(w *wsmetrics.Metrics) report.Value { return report.IntPtrValue(w.WSPeakHandshakes) }),
	row("ws_upgrades_per_s", report.KindCount, "n/a", "ws: the acted-on replica's UPGRADES_PER_S (n/a: unset, no limit, or not recorded)",
		func(w *wsmetrics.Metrics) report.Value { return report.IntPtrValue(w.WSUpgradesPerS) }),
	row("ws_events_delivered", report.KindCount, "", "ws: events delivered to the application (received - dup_rejected)",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSEventsDelivered) }),
	row("ws_events_dup_rejected", report.KindCount, "", "ws: duplicate events the id cache rejected",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSEventsDupRejected) }),
	row("ws_events_dup_accepted", report.KindCount, "", "ws: events delivered twice (an evicted id)",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSEventsDupAccepted) }),
	row("ws_events_unknown", report.KindCount, "", "ws: sequence numbers in a gap never delivered (contents unknown)",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSEventsUnknown) }),
	row("ws_events_replayed", report.KindCount, "", "ws: events delivered from the replay buffer",
		func(w *wsmetrics.Metrics) report.Value { return report.IntValue(w.WSEventsReplayed) }),
	row("ws_budget_ms", report.KindMs, "n/a", "ws: PRESTOP_MS + CLOSE_SPREAD_MS + CLOSE_DEADLINE_MS (W6)",
		func(w *wsmetrics.Metrics) report.Value { return report.FloatPtrValue(w.WSBudgetMs) }),
	row("ws_budget_fits", report.KindBool, "n/a", "ws: ws_budget_ms is less than the stop timeout (W6)",
		func(w *wsmetrics.Metrics) report.Value { return report.BoolPtrValue(w.WSBudgetFits) }),
}

// headline is the headline of a result whose runs are all WebSocket
// loads: what the long-lived clients saw, then how the process ended. The
// request metrics of the HTTP headline would read 0 there (no request was
// sent), which says nothing about the streams.
var headline = []string{"ws_clients", "ws_close_1001", "ws_close_1006", "ws_close_other", "ws_close_after_signal_p95_ms",
	"ws_terminated", "ws_upgrades_refused_draining", "ws_upgrades_accepted_after_ready_false", "ws_restore_p99_ms",
	"ws_unrestored", "ws_peak_handshakes_per_100ms", "ws_events_unknown", "exit_code", "exit_after_ms", "drain_ms"}

// headlineText explains the WebSocket headline under its table.
const headlineText = "\n`ws_close_1001` counts streams the server retired (going away), `ws_close_1006` streams that " +
	"ended without a close frame; `ws_close_after_signal_p95_ms` is when the closes came after the action " +
	"(the spread); `ws_terminated` peers cut at the close deadline; `ws_upgrades_*` the handshakes the " +
	"acted-on replica refused or accepted after its readiness failed; `ws_restore_p99_ms` the time from a " +
	"close to the client's next open stream; `ws_events_unknown` events no client ever got. Every other " +
	"metric is in the table below.\n\n## All metrics\n\n"
