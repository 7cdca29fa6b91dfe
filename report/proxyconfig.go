package report

import (
	"fmt"
	"strings"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

// headlineExtra are optional metrics the terminal table shows when some
// run has them (a scenario with writes, a baseline, or a WebSocket load).
var headlineExtra = []string{"ghost_writes", "clean_failures", "lost_writes", "unknown_writes", "p99_vs_baseline",
	"ws_close_1006", "ws_close_after_signal_p95_ms", "ws_restore_p99_ms", "ws_unrestored", "ws_peak_handshakes_per_100ms", "ws_events_unknown"}

// wsHeadline is the headline of a result whose runs are all WebSocket
// loads: what the long-lived clients saw, then how the process ended. The
// request metrics of the HTTP headline would read 0 there (no request was
// sent), which says nothing about the streams.
var wsHeadline = []string{"ws_clients", "ws_close_1001", "ws_close_1006", "ws_close_other", "ws_close_after_signal_p95_ms",
	"ws_terminated", "ws_upgrades_refused_draining", "ws_upgrades_accepted_after_ready_false", "ws_restore_p99_ms",
	"ws_unrestored", "ws_peak_handshakes_per_100ms", "ws_events_unknown", "exit_code", "exit_after_ms", "drain_ms"}

// allWS reports whether every run of res is a WebSocket load.
func allWS(res *Result) bool {
	n := 0
	for i := range res.Variants {
		for j := range res.Variants[i].Runs {
			if res.Variants[i].Runs[j].Metrics.WSMetrics == nil {
				return false
			}
			n++
		}
	}
	return n > 0
}

// headlineFor is the terminal table's metric list for res: wsHeadline for
// a result of WebSocket loads, else headline plus each of headlineExtra
// that has a value in some run.
func headlineFor(res *Result) []string {
	if allWS(res) {
		return append([]string(nil), wsHeadline...)
	}
	if allRollout(res) {
		return append([]string(nil), rolloutHeadline...)
	}
	cols := append([]string(nil), headline...)
	var ms []*Metrics
	for i := range res.Variants {
		for j := range res.Variants[i].Runs {
			ms = append(ms, &res.Variants[i].Runs[j].Metrics)
		}
	}
	for _, name := range headlineExtra {
		for _, d := range defs {
			if d.Name == name && anyValue(d, ms) {
				cols = append(cols, name)
			}
		}
	}
	return cols
}

// writeProxyConfig appends the proxy configuration section of report.md:
// the exact Caddy JSON of the first run that used a proxy (every run's own
// copy is proxy.json in its directory, its sha256 in events.json).
// writeScenario appends the scenario file as run, so a report says what was
// measured without the result directory beside it.
func writeScenario(b *strings.Builder, res *Result) {
	if res.ScenarioYAML == "" {
		return
	}
	b.WriteString("\n## Scenario\n\nThe scenario file as run (`" + resultdir.ScenarioFile + "`; `--set` overrides and variants are applied on top of it, see each variant's label).\n\n")
	b.WriteString("```yaml\n" + strings.TrimRight(res.ScenarioYAML, "\n") + "\n```\n")
	if len(res.Sets) > 0 {
		b.WriteString("\nRun with")
		for i, s := range res.Sets {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(" `--set " + s + "`")
		}
		b.WriteString(" (" + resultdir.EffectiveFile + ").\n")
	}
}

func writeProxyConfig(b *strings.Builder, res *Result) {
	if res.ProxyConfig == "" {
		return
	}
	b.WriteString("\n## Proxy configuration\n\n")
	fmt.Fprintf(b, "The exact Caddy configuration of `%s` (sha256 `%s`); every run's own copy is `%s` in its directory. "+
		"Retries, if any, are Caddy's and appear here (`load_balancing.try_duration`, `retry_match`); the load agent never retries.\n\n",
		res.ProxyConfigFrom, res.ProxyConfigSHA256, resultdir.ProxyConfigFile)
	b.WriteString("```json\n" + strings.TrimRight(res.ProxyConfig, "\n") + "\n```\n")
}
