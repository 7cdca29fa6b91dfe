package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shutdownlab/shutdownlab/record"
)

// PreStopEnv is the target's pre-stop variable (how long it keeps serving,
// readiness failed, before it closes its listener); the deregistration
// section groups its curve by it.
const PreStopEnv = "PRESTOP_MS"

// DeregRow is one variant of a scenario whose roll deregisters the replica
// from the proxy (proxy.deregister_after): the point (propagation delay,
// pre-stop) and what the clients saw, over its valid runs.
type DeregRow struct {
	// Label is the variant label.
	Label string
	// DelayMs is the planned deregistration delay after the signal.
	DelayMs float64
	// PreStop is the acted-on replica's PRESTOP_MS ("" when not set).
	PreStop string
	// Valid counts the valid runs; Failed holds each one's failed
	// requests, in run order.
	Valid  int
	Failed []int
	// ByClass sums the failed requests of the valid runs by class key.
	ByClass map[string]int
	// SentMs and AckedMs are each valid run's deregistration request and
	// acknowledgement, in ms after the stop signal (AckedMs 0: none).
	SentMs, AckedMs []float64
}

// MeanFailed is the mean of Failed (0 without valid runs).
func (r DeregRow) MeanFailed() float64 {
	if len(r.Failed) == 0 {
		return 0
	}
	s := 0
	for _, f := range r.Failed {
		s += f
	}
	return float64(s) / float64(len(r.Failed))
}

// PreStopMs is PreStop as a number (-1 when unset or not a number).
func (r DeregRow) PreStopMs() float64 {
	v, err := strconv.ParseFloat(r.PreStop, 64)
	if err != nil {
		return -1
	}
	return v
}

// DeregRows returns one row per variant whose runs deregistered the
// acted-on replica from the proxy, in variant order (nil when none did).
// Pure.
func DeregRows(res *Result) []DeregRow {
	var rows []DeregRow
	for i := range res.Variants {
		v := &res.Variants[i]
		row, ok := DeregRow{Label: v.Label, ByClass: map[string]int{}}, false
		for j := range v.Runs {
			r := &v.Runs[j]
			a := r.Meta.Action
			if a == nil || a.Deregister == nil {
				continue
			}
			ok = true
			row.DelayMs = a.Deregister.AfterMs
			if k := ActedReplica(r.Meta); k >= 0 {
				row.PreStop = r.Meta.Replicas[k].Env[PreStopEnv]
			}
			if !r.Valid {
				continue
			}
			row.Valid++
			row.Failed = append(row.Failed, r.Metrics.Failed)
			for k, n := range r.Metrics.ByClass {
				if IsFailed(classOfKey(k)) {
					row.ByClass[k] += n
				}
			}
			row.SentMs = append(row.SentMs, sinceSignal(a, a.Deregister.SentNs))
			row.AckedMs = append(row.AckedMs, sinceSignal(a, a.Deregister.AckedNs))
		}
		if ok {
			rows = append(rows, row)
		}
	}
	return rows
}

// sinceSignal is ns in ms after the action's send time (0 when either is
// missing).
func sinceSignal(a *record.Action, ns int64) float64 {
	if ns == 0 || a.SentNs == 0 {
		return 0
	}
	return float64(ns-a.SentNs) / 1e6
}

// classOfKey maps a by_class key back to its class ("http_NNN" is
// http_error).
func classOfKey(k string) record.Class {
	if strings.HasPrefix(k, "http_") {
		return record.ClassHTTPError
	}
	return record.Class(k)
}

// SmallestZeroPreStop returns, for each deregistration delay (ascending),
// the smallest pre-stop among rows with that delay whose every valid run
// failed no request ("" when none did, or no row had valid runs). Pure.
func SmallestZeroPreStop(rows []DeregRow) (delays []float64, preStop []string) {
	for _, r := range rows {
		if !slices.Contains(delays, r.DelayMs) {
			delays = append(delays, r.DelayMs)
		}
	}
	slices.Sort(delays)
	for _, d := range delays {
		best, bestMs := "", 0.0
		for _, r := range rows {
			if r.DelayMs != d || r.Valid == 0 || slices.Max(r.Failed) != 0 || r.PreStopMs() < 0 {
				continue
			}
			if best == "" || r.PreStopMs() < bestMs {
				best, bestMs = r.PreStop, r.PreStopMs()
			}
		}
		preStop = append(preStop, best)
	}
	return delays, preStop
}

// deregSection is the deregistration race of a report whose rolls
// deregistered the replica from the proxy (proxy.deregister_after).
type deregSection struct {
	// plot is the curve plot drawn ("" when not drawn).
	plot string
}

// Markdown writes report.md's "Deregistration race" section when the
// result's rolls deregistered the replica from the proxy: per variant the
// delay, the pre-stop, the failed requests and when the proxy was asked
// and answered; then the smallest zero-failure pre-stop per delay, and the
// curve plot when drawn.
func (s *deregSection) Markdown(b *strings.Builder, res *Result) {
	rows := DeregRows(res)
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n## Deregistration race\n\n")
	b.WriteString("The runner removed the rolled replica from the proxy's upstreams `deregister_after` after " +
		"its stop signal (the model of an orchestrator's endpoint propagation). `sent`/`acked`: when the runner " +
		"sent the new upstream list to the proxy's admin API and when the proxy answered that it runs, ms after " +
		"the signal, per valid run. Failures are every failed request of the run, by class.\n\n")
	b.WriteString("| variant | deregister_after ms | PRESTOP_MS | valid runs | failed per run | failed by class | sent ms | acked ms |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		pre := r.PreStop
		if pre == "" {
			pre = "unset"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | %s | %s | %s |\n", MarkdownCell(r.Label), strconv.FormatFloat(r.DelayMs, 'f', -1, 64),
			MarkdownCell(pre), r.Valid, joinInts(r.Failed), MarkdownCell(classList(r.ByClass)), joinMs(r.SentMs), joinMs(r.AckedMs))
	}
	delays, pre := SmallestZeroPreStop(rows)
	b.WriteString("\nSmallest PRESTOP_MS of this sweep with no failed request in any valid run, per deregistration delay " +
		"(`none`: every pre-stop tried failed requests):\n\n| deregister_after ms | smallest zero-failure PRESTOP_MS |\n|---|---|\n")
	for i, d := range delays {
		p := pre[i]
		if p == "" {
			p = "none"
		}
		fmt.Fprintf(b, "| %s | %s |\n", strconv.FormatFloat(d, 'f', -1, 64), MarkdownCell(p))
	}
	if s.plot != "" {
		b.WriteString("\n![failures vs deregistration delay](" + s.plot + ")\n")
	}
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
