// Package deregistration is the deregistration race section of a report
// whose rolls deregistered the replica from the proxy
// (proxy.deregister_after): per variant the delay, the pre-stop, the
// failed requests and when the proxy was asked and answered (Rows), the
// smallest zero-failure pre-stop per delay (SmallestZeroPreStop), and the
// plot of failed requests against the delay, one line per pre-stop.
package deregistration

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
)

// Section is the deregistration race of a report whose rolls
// deregistered the replica from the proxy (proxy.deregister_after). The
// zero value is ready to use; use a fresh one per report.
type Section struct {
	// plot is the curve plot drawn ("" when not drawn).
	plot string
}

// Markdown writes report.md's "Deregistration race" section when the
// result's rolls deregistered the replica from the proxy: per variant the
// delay, the pre-stop, the failed requests and when the proxy was asked
// and answered; then the smallest zero-failure pre-stop per delay, and the
// curve plot when drawn.
func (s *Section) Markdown(b *strings.Builder, res *report.Result) {
	rows := Rows(res)
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n## Deregistration race\n\n")
	w := wordingOf(rows)
	b.WriteString(w.intro)
	b.WriteString("| variant | deregister_after ms | " + w.preStop + " | valid runs | failed per run | failed by class | sent ms | acked ms |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		pre := r.PreStop
		if pre == "" {
			pre = "unset"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %s | %s | %s |\n", report.MarkdownCell(r.Label), strconv.FormatFloat(r.DelayMs, 'f', -1, 64),
			report.MarkdownCell(pre), r.Valid, joinInts(r.Failed), report.MarkdownCell(classList(r.ByClass)), joinMs(r.SentMs), joinMs(r.AckedMs))
	}
	delays, pre := SmallestZeroPreStop(rows)
	b.WriteString("\nSmallest " + w.preStop + " of this sweep with no failed request in any valid run, per deregistration delay " +
		"(`none`: every pre-stop tried failed requests):\n\n| deregister_after ms | smallest zero-failure " + w.preStop + " |\n|---|---|\n")
	for i, d := range delays {
		p := pre[i]
		if p == "" {
			p = "none"
		}
		fmt.Fprintf(b, "| %s | %s |\n", strconv.FormatFloat(d, 'f', -1, 64), report.MarkdownCell(p))
	}
	if s.plot != "" {
		b.WriteString("\n![failures vs deregistration delay](" + s.plot + ")\n")
	}
}

// wording is what the section calls the pre-stop and how it introduces
// the table: a roll's PRESTOP_MS and stop signal, or a termination's
// hook and deletion.
type wording struct{ intro, preStop string }

// from is what the delay counts from.
func (w wording) from() string {
	if w.preStop == "PRESTOP_MS" {
		return "stop signal"
	}
	return "pod's deletion"
}

func wordingOf(rows []Row) wording {
	if !slices.ContainsFunc(rows, func(r Row) bool { return r.Termination }) {
		return wording{preStop: "PRESTOP_MS", intro: "The runner removed the rolled replica from the proxy's upstreams `deregister_after` after " +
			"its stop signal (the model of an orchestrator's endpoint propagation). `sent`/`acked`: when the runner " +
			"sent the new upstream list to the proxy's admin API and when the proxy answered that it runs, ms after " +
			"the signal, per valid run. Failures are every failed request of the run, by class.\n\n"}
	}
	return wording{preStop: "pre-stop ms", intro: "The runner removed the terminated replica from the proxy's upstreams `deregister_after` after " +
		"the pod's deletion (the endpoint propagation delay); the stop signal followed the pre-stop hook. `pre-stop ms`: the hook's " +
		"sleep plus the target's PRESTOP_MS, how long after the deletion the built-in target keeps its listener open (blank for an " +
		"exec or http_get hook, whose length is the app's). `sent`/`acked`: when the runner sent the new upstream list to the " +
		"proxy and when the proxy answered that it runs, ms after the deletion, per valid run. Failures are every failed request " +
		"of the run, by class.\n\n"}
}

func joinInts(v []int) string {
	if len(v) == 0 {
		return "—"
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

func joinMs(v []float64) string {
	if len(v) == 0 {
		return "—"
	}
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = "—"
		if x != 0 {
			s[i] = strconv.FormatFloat(x, 'f', 0, 64)
		}
	}
	return strings.Join(s, ", ")
}

// classList prints a by-class map as "eof 8, http_502 48" (sorted keys;
// "—" when empty).
func classList(m map[string]int) string {
	if len(m) == 0 {
		return "—"
	}
	var s []string
	for _, k := range sortedClassKeys(m) {
		s = append(s, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(s, ", ")
}

func sortedClassKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
