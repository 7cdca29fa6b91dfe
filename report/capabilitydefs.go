package report

// The catalog rows of the capabilities, each read through its
// capability's part of Metrics (nil: the row is null), and each optional:
// present in a report when some run is of the capability.
// defs (catalog.go) places them among the core rows; they are listed here
// in that order: the WebSocket, jobs and resource rows (the others live
// in their capabilities' packages).

// isWSMetricsRun is the presence test of the ws metric rows: every ws run
// has them, whatever their values.
func isWSMetricsRun(m *Metrics) bool { return m.WS() != nil }

// wsCount, wsMs, wsCountP and wsBoolP read one WSMetrics field; null in a
// run without ws metrics.
func wsCount(f func(*WSMetrics) int) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if m.WS() == nil {
			return Value{Null: true}
		}
		return IntValue(f(m.WS()))
	}
}

func wsMs(f func(*WSMetrics) *float64) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if m.WS() == nil {
			return Value{Null: true}
		}
		return FloatPtrValue(f(m.WS()))
	}
}

func wsCountP(f func(*WSMetrics) *int) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if m.WS() == nil {
			return Value{Null: true}
		}
		return IntPtrValue(f(m.WS()))
	}
}

func wsBoolP(f func(*WSMetrics) *bool) func(*Metrics) Value {
	return func(m *Metrics) Value {
		if m.WS() == nil {
			return Value{Null: true}
		}
		return BoolPtrValue(f(m.WS()))
	}
}

// wsDef is a ws metric row: optional (NeedsWS), present in every ws run.
func wsDef(name string, k Kind, null, doc string, get func(*Metrics) Value) MetricDef {
	return MetricDef{Name: name, Kind: k, Null: null, Doc: doc, Optional: NeedsWS, Present: isWSMetricsRun, Read: get}
}

// wsDefs are the WebSocket metric rows (docs/metrics.md, "WebSocket
// runs"), in table order after the probe rows.
var wsDefs = []MetricDef{
	wsDef("ws_clients", KindCount, "", "ws: clients (ws_client lines)", wsCount(func(w *WSMetrics) int { return w.WSClients })),
	wsDef("ws_attempts", KindCount, "", "ws: connection attempts (ws_attempt lines)", wsCount(func(w *WSMetrics) int { return w.WSAttempts })),
	wsDef("ws_close_1001", KindCount, "", "ws: closes the client did not start, code 1001 (going away)", wsCount(func(w *WSMetrics) int { return w.WSClose1001 })),
	wsDef("ws_close_1006", KindCount, "", "ws: closes the client did not start, no close frame (1006)", wsCount(func(w *WSMetrics) int { return w.WSClose1006 })),
	wsDef("ws_close_other", KindCount, "", "ws: closes the client did not start, any other code", wsCount(func(w *WSMetrics) int { return w.WSCloseOther })),
	wsDef("ws_close_after_signal_p50_ms", KindMs, "n/a", "ws: median close time after t0 (closes the client did not start)", wsMs(func(w *WSMetrics) *float64 { return w.WSCloseAfterSignalP50Ms })),
	wsDef("ws_close_after_signal_p95_ms", KindMs, "n/a", "ws: 95th percentile close time after t0", wsMs(func(w *WSMetrics) *float64 { return w.WSCloseAfterSignalP95Ms })),
	wsDef("ws_close_after_signal_max_ms", KindMs, "n/a", "ws: last close after t0", wsMs(func(w *WSMetrics) *float64 { return w.WSCloseAfterSignalMaxMs })),
	wsDef("ws_close_spread_ms", KindMs, "n/a", "ws: the acted-on replica's CLOSE_SPREAD_MS (n/a: unset, all at once, or not recorded)", wsMs(func(w *WSMetrics) *float64 { return w.WSCloseSpreadMs })),
	wsDef("ws_terminated", KindCount, "n/a", "ws: peers terminated at the close deadline (ws_terminated events)", Lifecycle(wsCount(func(w *WSMetrics) int { return w.WSTerminated }))),
	wsDef("ws_upgrades_accepted_after_ready_false", KindCount, "n/a", "ws: upgrades the acted-on replica accepted after its readiness failed", wsCountP(func(w *WSMetrics) *int { return w.WSAcceptedAfterReadyFalse })),
	wsDef("ws_upgrades_refused_draining", KindCount, "n/a", "ws: upgrades refused 503 draining after readiness failed", wsCountP(func(w *WSMetrics) *int { return w.WSRefusedDraining })),
	wsDef("ws_upgrades_refused_capacity", KindCount, "n/a", "ws: upgrades refused 503 capacity after readiness failed", wsCountP(func(w *WSMetrics) *int { return w.WSRefusedCapacity })),
	wsDef("ws_upgrades_refused_proxy", KindCount, "n/a", "ws: upgrades refused 503 without the refusal header (a proxy) after readiness failed", wsCountP(func(w *WSMetrics) *int { return w.WSRefusedProxy })),
	wsDef("ws_restore_p50_ms", KindMs, "n/a", "ws: median time from a close to the client's next open connection", wsMs(func(w *WSMetrics) *float64 { return w.WSRestoreP50Ms })),
	wsDef("ws_restore_p99_ms", KindMs, "n/a", "ws: 99th percentile time to restore", wsMs(func(w *WSMetrics) *float64 { return w.WSRestoreP99Ms })),
	wsDef("ws_restore_max_ms", KindMs, "n/a", "ws: longest time to restore", wsMs(func(w *WSMetrics) *float64 { return w.WSRestoreMaxMs })),
	wsDef("ws_unrestored", KindCount, "", "ws: closes never followed by an open connection of the client", wsCount(func(w *WSMetrics) int { return w.WSUnrestored })),
	wsDef("ws_attempts_per_client_max", KindCount, "", "ws: most attempts of one client", wsCount(func(w *WSMetrics) int { return w.WSAttemptsPerClientMax })),
	wsDef("ws_attempts_per_client_mean", KindRatio, "n/a", "ws: attempts per client, mean", wsMs(func(w *WSMetrics) *float64 { return w.WSAttemptsPerClientMean })),
	wsDef("ws_peak_handshakes_per_100ms", KindCount, "n/a", "ws: most handshakes one instance answered in 100 ms, from t0", wsCountP(func(w *WSMetrics) *int { return w.WSPeakHandshakes })),
	wsDef("ws_upgrades_per_s", KindCount, "n/a", "ws: the acted-on replica's UPGRADES_PER_S (n/a: unset, no limit, or not recorded)", wsCountP(func(w *WSMetrics) *int { return w.WSUpgradesPerS })),
	wsDef("ws_events_delivered", KindCount, "", "ws: events delivered to the application (received - dup_rejected)", wsCount(func(w *WSMetrics) int { return w.WSEventsDelivered })),
	wsDef("ws_events_dup_rejected", KindCount, "", "ws: duplicate events the id cache rejected", wsCount(func(w *WSMetrics) int { return w.WSEventsDupRejected })),
	wsDef("ws_events_dup_accepted", KindCount, "", "ws: events delivered twice (an evicted id)", wsCount(func(w *WSMetrics) int { return w.WSEventsDupAccepted })),
	wsDef("ws_events_unknown", KindCount, "", "ws: sequence numbers in a gap never delivered (contents unknown)", wsCount(func(w *WSMetrics) int { return w.WSEventsUnknown })),
	wsDef("ws_events_replayed", KindCount, "", "ws: events delivered from the replay buffer", wsCount(func(w *WSMetrics) int { return w.WSEventsReplayed })),
	wsDef("ws_budget_ms", KindMs, "n/a", "ws: PRESTOP_MS + CLOSE_SPREAD_MS + CLOSE_DEADLINE_MS (W6)", wsMs(func(w *WSMetrics) *float64 { return w.WSBudgetMs })),
	wsDef("ws_budget_fits", KindBool, "n/a", "ws: ws_budget_ms is less than the stop timeout (W6)", wsBoolP(func(w *WSMetrics) *bool { return w.WSBudgetFits })),
}
