package report

// The headline: the first table of report.md ("What the clients saw") and
// the terminal table. A result whose every run is of one capability that
// has its own headline leads with that capability's metrics (headlines,
// first match); any other result leads with what the HTTP clients saw.

// headline is what the service did to its clients, the metric list of the
// terminal table and of report.md's first table: failures while the
// acted-on replica still ran lead; failures after its exit are details.
var headline = []string{"requests", "failed_while_running", "dropped_inflight", "failed_in_delivery_window", "idle_close_race",
	"served_after_signal", "exit_code", "exit_after_ms", "drain_observed_ms", "drain_ms", "p99_ms"}

// headlineExtra are optional metrics the HTTP headline shows when some
// run has them (a scenario with writes, a baseline, or a WebSocket load).
var headlineExtra = []string{"ghost_writes", "clean_failures", "lost_writes", "unknown_writes", "p99_vs_baseline",
	"ws_close_1006", "ws_close_after_signal_p95_ms", "ws_restore_p99_ms", "ws_unrestored", "ws_peak_handshakes_per_100ms", "ws_events_unknown"}

// httpHeadlineText explains the HTTP headline under its table.
const httpHeadlineText = "\n`failed_while_running` counts failures that started before the acted-on replica exited; " +
	"`dropped_inflight` requests fully written before the action was sent; `failed_in_delivery_window` " +
	"requests written while the signal was on its way (they may be drops too); `idle_close_race` " +
	"requests written onto a keep-alive connection the server was closing. Failures after the exit " +
	"(`failed_after_exit`) and every other metric are in the table below.\n\n## All metrics\n\n"

// wsHeadline is the headline of a result whose runs are all WebSocket
// loads: what the long-lived clients saw, then how the process ended. The
// request metrics of the HTTP headline would read 0 there (no request was
// sent), which says nothing about the streams.
var wsHeadline = []string{"ws_clients", "ws_close_1001", "ws_close_1006", "ws_close_other", "ws_close_after_signal_p95_ms",
	"ws_terminated", "ws_upgrades_refused_draining", "ws_upgrades_accepted_after_ready_false", "ws_restore_p99_ms",
	"ws_unrestored", "ws_peak_handshakes_per_100ms", "ws_events_unknown", "exit_code", "exit_after_ms", "drain_ms"}

// wsHeadlineText explains the WebSocket headline under its table.
const wsHeadlineText = "\n`ws_close_1001` counts streams the server retired (going away), `ws_close_1006` streams that " +
	"ended without a close frame; `ws_close_after_signal_p95_ms` is when the closes came after the action " +
	"(the spread); `ws_terminated` peers cut at the close deadline; `ws_upgrades_*` the handshakes the " +
	"acted-on replica refused or accepted after its readiness failed; `ws_restore_p99_ms` the time from a " +
	"close to the client's next open stream; `ws_events_unknown` events no client ever got. Every other " +
	"metric is in the table below.\n\n## All metrics\n\n"

// headlineOf is the headline of the first capability (in their order)
// that every run of res has (nil: the HTTP headline).
func headlineOf(res *Result) *Headline {
	for _, c := range installed() {
		if c.Headline == nil {
			continue
		}
		n, all := 0, true
		for i := range res.Variants {
			v := &res.Variants[i]
			for j := range v.Runs {
				all = all && c.Has(v, &v.Runs[j])
				n++
			}
		}
		if all && n > 0 {
			return c.Headline
		}
	}
	return nil
}

// headlineFor is the terminal table's metric list for res: its
// capability headline, else headline plus each of headlineExtra that has
// a value in some run.
func headlineFor(res *Result) []string {
	if h := headlineOf(res); h != nil {
		return append([]string(nil), h.Cols...)
	}
	cols := append([]string(nil), headline...)
	var ms []*Metrics
	for i := range res.Variants {
		for j := range res.Variants[i].Runs {
			ms = append(ms, &res.Variants[i].Runs[j].Metrics)
		}
	}
	for _, name := range headlineExtra {
		for _, d := range catalog() {
			if d.Name == name && anyValue(d, ms) {
				cols = append(cols, name)
			}
		}
	}
	return cols
}

// headlineText is the text under res's headline table.
func headlineText(res *Result) string {
	if h := headlineOf(res); h != nil {
		return h.Text
	}
	return httpHeadlineText
}

// headlineDefs are the definitions of headlineFor(res), in order.
func headlineDefs(res *Result) []MetricDef {
	byName := map[string]MetricDef{}
	for _, d := range catalog() {
		byName[d.Name] = d
	}
	var ds []MetricDef
	for _, h := range headlineFor(res) {
		ds = append(ds, byName[h])
	}
	return ds
}
