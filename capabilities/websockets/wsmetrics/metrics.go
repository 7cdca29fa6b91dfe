// Package wsmetrics computes the metrics of a run of the WebSocket load
// driver (load.kind ws) from its ws lines (Lines), the acted-on replica's
// lifecycle events and environment, and the delivery window: closes by code
// and their spread after t0, the upgrades around readiness, the time to
// restore a stream, the handshake peak, the event accounting and the W6
// budget. Pure; report holds the result as a part of its Metrics
// (websockets.Of), and its capability defines the ws_* rows.
package wsmetrics

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Metrics are the metrics of a run driven by the WebSocket load driver
// (load.kind ws), pure functions of its ws lines (Lines), the acted-on
// replica's lifecycle events and environment, and the delivery window.
// report.Metrics holds them as a part (websockets.Of), flat in its JSON: absent
// from the JSON of other runs, and present (null when there is nothing to
// measure) in ws runs. docs/metrics.md defines each one.
type Metrics struct {
	// WSClients counts the clients (ws_client lines); WSAttempts the
	// connection attempts (ws_attempt lines).
	WSClients  int `json:"ws_clients"`
	WSAttempts int `json:"ws_attempts"`

	// Closes the client did not start (closed_by server or abnormal), by
	// code: 1001 going away, 1006 no close frame, any other code.
	WSClose1001  int `json:"ws_close_1001"`
	WSClose1006  int `json:"ws_close_1006"`
	WSCloseOther int `json:"ws_close_other"`

	// Close times after T0 of the closes the client did not start that
	// ended at or after T0 (behind a proxy: connections the acted-on
	// replica served); null without an action or such a close.
	WSCloseAfterSignalP50Ms *float64 `json:"ws_close_after_signal_p50_ms"`
	WSCloseAfterSignalP95Ms *float64 `json:"ws_close_after_signal_p95_ms"`
	WSCloseAfterSignalMaxMs *float64 `json:"ws_close_after_signal_max_ms"`
	// WSCloseSpreadMs is the acted-on replica's CLOSE_SPREAD_MS; null when
	// its environment does not set it (the target then closes all at once)
	// or was not recorded (a note says so).
	WSCloseSpreadMs *float64 `json:"ws_close_spread_ms"`

	// WSTerminated counts the acted-on replica's ws_terminated events:
	// peers that did not finish the closing handshake by its deadline.
	WSTerminated int `json:"ws_terminated"`

	// Upgrades started at or after the acted-on replica's ready_false
	// event: accepted by it (101), refused while draining or over
	// capacity (503 with record.RefusalHeader), refused by a proxy (503
	// without the header). Null without a ready_false event.
	WSAcceptedAfterReadyFalse *int `json:"ws_upgrades_accepted_after_ready_false"`
	WSRefusedDraining         *int `json:"ws_upgrades_refused_draining"`
	WSRefusedCapacity         *int `json:"ws_upgrades_refused_capacity"`
	WSRefusedProxy            *int `json:"ws_upgrades_refused_proxy"`

	// Time to restore: from a close the client did not start to the end
	// of the client's next opened handshake (0 when another of its
	// connections was open); null without such a close that was restored.
	// WSUnrestored counts the closes never followed by an open connection.
	WSRestoreP50Ms *float64 `json:"ws_restore_p50_ms"`
	WSRestoreP99Ms *float64 `json:"ws_restore_p99_ms"`
	WSRestoreMaxMs *float64 `json:"ws_restore_max_ms"`
	WSUnrestored   int      `json:"ws_unrestored"`

	// Attempts per client: the most any client made, and the mean (null
	// without a client).
	WSAttemptsPerClientMax  int      `json:"ws_attempts_per_client_max"`
	WSAttemptsPerClientMean *float64 `json:"ws_attempts_per_client_mean"`

	// WSPeakHandshakes is the most handshakes one instance answered
	// (101, or its own refusal) in one 100 ms bucket from T0 on;
	// WSUpgradesPerS the acted-on replica's UPGRADES_PER_S (null: unset,
	// no limit; or not recorded).
	WSPeakHandshakes *int `json:"ws_peak_handshakes_per_100ms"`
	WSUpgradesPerS   *int `json:"ws_upgrades_per_s"`

	// Event accounting summed over the ws_client lines.
	WSEventsDelivered   int `json:"ws_events_delivered"`
	WSEventsDupRejected int `json:"ws_events_dup_rejected"`
	WSEventsDupAccepted int `json:"ws_events_dup_accepted"`
	WSEventsUnknown     int `json:"ws_events_unknown"`
	WSEventsReplayed    int `json:"ws_events_replayed"`

	// W6: WSBudgetMs = PRESTOP_MS + CLOSE_SPREAD_MS + CLOSE_DEADLINE_MS of
	// the acted-on replica, WSBudgetFits whether it is less than the stop
	// timeout. Null when the replica runs another mode than full, a
	// variable does not parse, or (fits) the stop timeout is unknown.
	WSBudgetMs   *float64 `json:"ws_budget_ms"`
	WSBudgetFits *bool    `json:"ws_budget_fits"`
}

// The target environment variables the ws metrics read (targetapp's
// Config; docs/scenarios.md).
const (
	envPrestopMs       = "PRESTOP_MS"
	envCloseSpreadMs   = "CLOSE_SPREAD_MS"
	envCloseDeadlineMs = "CLOSE_DEADLINE_MS"
	envUpgradesPerS    = "UPGRADES_PER_S"
)

// defaultCloseDeadlineMs is the built-in targets' CLOSE_DEADLINE_MS when
// the environment does not set it (targetapp.DefaultConfig); PRESTOP_MS
// and CLOSE_SPREAD_MS default to 0.
const defaultCloseDeadlineMs = 2000

// BucketNs is the width of a handshake-rate bucket: 100 ms.
const BucketNs = int64(100e6)

// Compute returns the WebSocket metrics of a ws run (nil for a run of
// another load kind) and its notes, in order: what could not be
// attributed or read, and where the handshake peak was. stopTimeoutS is
// the stop grace period in force (report's stop_timeout_s; nil when
// unknown), which the W6 budget is compared with.
func Compute(meta record.Meta, ws *Lines, stopTimeoutS *int) (*Metrics, []string) {
	if !IsRun(meta, ws) {
		return nil, nil
	}
	if ws == nil {
		ws = &Lines{}
	}
	w := &Metrics{WSClients: len(ws.Clients), WSAttempts: len(ws.Attempts)}
	var notes []string
	acted := ActedUpstream(meta)
	w.WSClose1001, w.WSClose1006, w.WSCloseOther = wsCloseCodes(ws.Closes)
	w.WSRestoreP50Ms, w.WSRestoreP99Ms, w.WSRestoreMaxMs, w.WSUnrestored = wsRestore(ws)
	w.WSAttemptsPerClientMax, w.WSAttemptsPerClientMean = wsAttemptsPerClient(ws)
	wsEventTotals(w, ws.Clients)
	attributed := true
	if n := Unattributed(meta, ws.Attempts); n > 0 {
		attributed = false
		notes = append(notes, fmt.Sprintf("ws: %d opened handshakes carry no %s, so behind the proxy their replica is unknown: "+
			"ws_close_after_signal_*, ws_peak_handshakes_per_100ms and ws_upgrades_accepted_after_ready_false are null", n, record.UpstreamHeader))
	}
	if win, ok := shutdown.DeliveryWindow(meta); ok && attributed {
		after := CloseTimes(ws, win.T0, acted)
		w.WSCloseAfterSignalP50Ms, w.WSCloseAfterSignalP95Ms, w.WSCloseAfterSignalMaxMs = quantiles(after, 0.5, 0.95)
	}
	if peak, at := wsPeakHandshakes(ws.Attempts, PeakBase(meta, ws), meta.Topology != ""); attributed {
		w.WSPeakHandshakes = &peak
		if peak > 0 {
			notes = append(notes, fmt.Sprintf("ws handshake peak: %d in the 100 ms bucket from %s ms after t0 at %s", peak, shutdown.SignedMs(float64(at.bucket*BucketNs)/1e6), at.instance))
		}
	}
	i := shutdown.ActedReplica(meta)
	if i < 0 {
		return w, notes
	}
	rep := meta.Replicas[i]
	env := wsEnv{vars: rep.Env}
	w.WSCloseSpreadMs = env.ms(envCloseSpreadMs)
	w.WSUpgradesPerS = env.count(envUpgradesPerS)
	for _, e := range rep.Events {
		if e.Event == record.EventWSTerminated {
			w.WSTerminated++
		}
	}
	if t := shutdown.FirstEvent(rep.Events, record.EventReadyFalse); t > 0 {
		wsAfterReadyFalse(w, ws.Attempts, t, acted)
		if !attributed {
			w.WSAcceptedAfterReadyFalse = nil
		}
	}
	if mode := shutdown.UpMode(rep.Events); mode == "" || mode == "full" {
		w.WSBudgetMs, w.WSBudgetFits = wsBudget(&env, stopTimeoutS)
	}
	return w, append(notes, env.notes...)
}

// ActedUpstream returns the test "this handshake's upstream is the
// acted-on replica": always true on a direct topology; behind a proxy, the
// upstream header names the replica ("name:port").
func ActedUpstream(meta record.Meta) func(string) bool {
	if meta.Topology == "" {
		return func(string) bool { return true }
	}
	i := shutdown.ActedReplica(meta)
	if i < 0 {
		return func(string) bool { return false }
	}
	prefix := meta.Replicas[i].Name + ":"
	return func(up string) bool { return strings.HasPrefix(up, prefix) }
}

// Unattributed counts, behind a proxy, the opened handshakes (101)
// without an upstream header: connections no replica can be named for.
// Always 0 on a direct topology.
func Unattributed(meta record.Meta, attempts []record.WSAttempt) int {
	if meta.Topology == "" {
		return 0
	}
	n := 0
	for i := range attempts {
		if attempts[i].Status == 101 && attempts[i].Upstream == "" {
			n++
		}
	}
	return n
}

// serverEnded reports whether the client did not start close c.
func serverEnded(c *record.WSClose) bool { return c.ClosedBy != record.WSClosedByClient }

// wsCloseCodes counts the closes the client did not start by code class.
func wsCloseCodes(closes []record.WSClose) (c1001, c1006, other int) {
	for i := range closes {
		c := &closes[i]
		switch {
		case !serverEnded(c):
		case c.Code == 1001:
			c1001++
		case c.Code == record.WSCodeAbnormal:
			c1006++
		default:
			other++
		}
	}
	return c1001, c1006, other
}

// CloseTimes returns, in ms after t0 and sorted, the close times of the
// closes the client did not start that ended at or after t0 on a
// connection whose handshake upstream passes acted.
func CloseTimes(ws *Lines, t0 int64, acted func(string) bool) []float64 {
	up := map[uint64]string{}
	for _, a := range ws.Attempts {
		if a.Conn != 0 {
			up[a.Conn] = a.Upstream
		}
	}
	var out []float64
	for i := range ws.Closes {
		c := &ws.Closes[i]
		if serverEnded(c) && c.Closed >= t0 && acted(up[c.Conn]) {
			out = append(out, float64(c.Closed-t0)/1e6)
		}
	}
	slices.Sort(out)
	return out
}

func ptr[T any](v T) *T { return &v }

// quantiles returns the p and q quantiles (stat.Empirical, as the latency
// metrics) and the maximum of sorted xs; nil for each without values.
func quantiles(xs []float64, p, q float64) (*float64, *float64, *float64) {
	if len(xs) == 0 {
		return nil, nil, nil
	}
	return ptr(stat.Quantile(p, stat.Empirical, xs, nil)), ptr(stat.Quantile(q, stat.Empirical, xs, nil)), ptr(xs[len(xs)-1])
}

// wsRestore measures, for every close the client did not start, the time
// until the client had an open connection again: 0 when another of its
// connections was open at that moment, else the end of its first
// handshake that opened after it. Closes never followed by an open
// connection are counted, not timed.
func wsRestore(ws *Lines) (p50, p99, maxMs *float64, unrestored int) {
	closedAt := map[uint64]int64{}
	for _, c := range ws.Closes {
		closedAt[c.Conn] = c.Closed
	}
	opened := map[int][]record.WSAttempt{}
	for _, a := range ws.Attempts {
		if a.Class == record.ClassOK {
			opened[a.Client] = append(opened[a.Client], a)
		}
	}
	var times []float64
	for i := range ws.Closes {
		c := &ws.Closes[i]
		if !serverEnded(c) {
			continue
		}
		best := int64(math.MaxInt64)
		for _, a := range opened[c.Client] {
			if a.Conn == c.Conn {
				continue
			}
			end, closed := a.End, closedAt[a.Conn]
			switch {
			case end <= c.Closed && (closed == 0 || closed > c.Closed):
				best = 0 // still connected through another connection
			case end >= c.Closed:
				best = min(best, end-c.Closed)
			}
		}
		if best == math.MaxInt64 {
			unrestored++
			continue
		}
		times = append(times, float64(best)/1e6)
	}
	slices.Sort(times)
	p50, p99, maxMs = quantiles(times, 0.5, 0.99)
	return p50, p99, maxMs, unrestored
}

// wsAttemptsPerClient returns the most attempts one client made and the
// mean over the clients (every client that printed a ws_client line or
// made an attempt; nil without any).
func wsAttemptsPerClient(ws *Lines) (int, *float64) {
	per := map[int]int{}
	for _, c := range ws.Clients {
		per[c.Client] += 0
	}
	for _, a := range ws.Attempts {
		per[a.Client]++
	}
	if len(per) == 0 {
		return 0, nil
	}
	most := 0
	for _, n := range per {
		most = max(most, n)
	}
	return most, ptr(float64(len(ws.Attempts)) / float64(len(per)))
}

// wsEventTotals sums the clients' event accounting into w: delivered is
// received minus what the id cache rejected.
func wsEventTotals(w *Metrics, clients []record.WSClient) {
	for _, c := range clients {
		w.WSEventsDelivered += c.Received - c.DupRejected
		w.WSEventsDupRejected += c.DupRejected
		w.WSEventsDupAccepted += c.DupAccepted
		w.WSEventsUnknown += int(c.Unknown)
		w.WSEventsReplayed += c.Replayed
	}
}

// wsAfterReadyFalse counts the upgrades started at or after t (the
// acted-on replica's ready_false): accepted by that replica, refused
// draining, refused over capacity (by any instance), refused by a proxy.
// A refusal header of another value is in no count; a note says so.
func wsAfterReadyFalse(w *Metrics, attempts []record.WSAttempt, t int64, acted func(string) bool) {
	var acc, drain, capa, proxy int
	for _, a := range attempts {
		switch {
		case a.Start < t:
		case a.Class == record.ClassOK && acted(a.Upstream):
			acc++
		case a.Status != 503:
		case a.Refusal == record.RefusalDraining:
			drain++
		case a.Refusal == record.RefusalCapacity:
			capa++
		case a.Refusal == "":
			proxy++
		}
	}
	w.WSAcceptedAfterReadyFalse, w.WSRefusedDraining, w.WSRefusedCapacity, w.WSRefusedProxy = &acc, &drain, &capa, &proxy
}
