// Package rollout is an orchestrator's rollout as a capability (a Swarm
// service's, platform swarm; a Deployment's, platform kubernetes; action
// kind rollout): its catalog rows and headline
// (capability.go), and the Rollout section of report.md: per variant (its
// first valid run) the update as sent, each task as the engine reported it
// with the requests it served and failed, and the plot of the requests
// served by old and new tasks (rollout.png in that run's directory).
package rollout

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
)

// Section is the Rollout section of a report whose runs rolled a Swarm
// service. The zero value is ready to use; use a fresh one per report.
type Section struct {
	// plotted is set by Plots; runs are then the rollouts it drew, with
	// their per-task counts.
	plotted bool
	runs    []variantRollout
}

// Markdown writes report.md's "Rollout" section for a result whose runs
// rolled a Swarm service: per variant (its first valid run) the update as
// sent, each task as the engine reported it with the requests it served
// and failed, and the old-vs-new plot. Without Plots (the per-task counts
// come from the plot pass) the task table has no request counts.
func (s *Section) Markdown(b *strings.Builder, res *report.Result) {
	var runs []variantRollout
	if s.plotted {
		runs = s.runs
	} else {
		for i := range res.Variants {
			if r := rolloutRunOf(&res.Variants[i]); r != nil {
				runs = append(runs, variantRollout{Variant: res.Variants[i].Label, Run: r.Meta.Run, Meta: r.Meta})
			}
		}
	}
	if len(runs) == 0 {
		return
	}
	b.WriteString("\n## Rollout\n\n")
	if k := runs[0].Meta.Kubernetes(); k != nil {
		b.WriteString(kubeIntro(k))
		for _, rr := range runs {
			writeKubeRun(b, rr)
		}
		return
	}
	b.WriteString("The service was updated (`docker service update`) while the load ran. Tasks are as the engine " +
		"listed them; `signal` is the engine's kill event for the old task's container, `exit` its container's end " +
		"(ms after the update was sent); `served ok`/`failed` are the requests whose upstream header named the " +
		"task's address (topology caddy). Swarm removes a task from its DNS records, then waits 2 s, then sends the " +
		"stop signal (moby's executor: `deactivateServiceBinding`, `defaultGossipConvergeDelay`).\n")
	for _, rr := range runs {
		writeRolloutRun(b, rr, s.plotted)
	}
}

// writeRolloutRun writes one variant's rollout.
func writeRolloutRun(b *strings.Builder, rr variantRollout, counted bool) {
	r := rr.Meta.Rollout()
	fmt.Fprintf(b, "\n### %s (run %d)\n\n", report.MarkdownCell(rr.Variant), rr.Run)
	conv := "did **not** converge"
	if r.Converged {
		conv = fmt.Sprintf("converged %s ms after it was sent (update status %s)", msText(r.ConvergedNs, r.SentNs), report.MarkdownCell(r.UpdateState))
	}
	what := "forced (same spec, new tasks)"
	if r.Image != "" {
		what = "to image " + r.Image
	}
	fmt.Fprintf(b, "Update %s, order %s, parallelism %d, delay %s ms, failure action %s, stop grace period %s ms (%s), "+
		"health check %s; endpoint mode %s; %s.", what, r.Order, r.Parallelism, num(r.DelayMs), r.FailureAction,
		num(r.StopGracePeriodMs), r.StopSignal, r.HealthCheck, r.EndpointMode, conv)
	if r.ProxyDNS != "" {
		fmt.Fprintf(b, " Caddy resolved `%s` every %s ms.", r.ProxyDNS, num(r.ProxyRefreshMs))
	}
	if counted && rr.Unattributed > 0 {
		fmt.Fprintf(b, " %d failed requests name no task.", rr.Unattributed)
	}
	b.WriteString("\n\n| slot | generation | task | address | state | created | healthy | signal | exit | exit code | killed | unhealthy | served ok | failed |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range r.Tasks {
		code := "—"
		if t.ExitCode != nil {
			code = strconv.Itoa(*t.ExitCode)
		}
		ok, failed := "—", "—"
		if counted && len(rr.OK)+len(rr.Failed) > 0 {
			ok, failed = strconv.Itoa(rr.OK[t.ID]), strconv.Itoa(rr.Failed[t.ID])
		}
		fmt.Fprintf(b, "| %d | %s | %.12s | %s | %s | %s | %s | %s | %s | %s | %v | %d | %s | %s |\n", t.Slot, t.Generation, t.ID,
			orDash(t.Upstream), report.MarkdownCell(t.State), msText(t.CreatedNs, r.SentNs), msText(t.HealthyNs, r.SentNs),
			msText(t.SignalNs, r.SentNs), msText(t.FinishedNs, r.SentNs), code, t.KillNs > 0 || code == "137", t.Unhealthy, ok, failed)
	}
	if rr.Plot != "" {
		b.WriteString("\n![served by old and new tasks](" + rr.Plot + ")\n")
	}
}

// msText is ns - ref in whole ms ("—" when ns is 0).
func msText(ns, ref int64) string {
	if ns == 0 || ref == 0 {
		return "—"
	}
	return strconv.FormatFloat(float64(ns-ref)/1e6, 'f', 0, 64)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
