package report

import (
	"fmt"
	"strings"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

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
