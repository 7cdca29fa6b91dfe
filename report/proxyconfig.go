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

// headlineFor is the terminal table's metric list for res: headline, plus
// each of headlineExtra that has a value in some run.
func headlineFor(res *Result) []string {
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
