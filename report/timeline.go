package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// Phase names of the timeline, in column order: the harness sent the action
// (t₀), the acted-on replica logged the signal, flipped readiness, closed
// its listener, logged "drained" or hit its shutdown "deadline", and the
// engine saw it exit (FinishedAt). A phase the replica logs is named
// after its lifecycle event.
const (
	PhaseSent           = "sent"
	PhaseSignal         = record.EventSignal
	PhaseReadyFalse     = record.EventReadyFalse
	PhaseListenerClosed = record.EventListenerClosed
	PhaseDrained        = record.EventDrained
	PhaseDeadline       = record.EventDeadline
	PhaseExit           = "exit"
)

// The deregistration phases (proxy.deregister_after): when the runner sent
// the proxy its upstream list without the replica, and when the proxy
// acknowledged it. They are columns of the timeline only for variants
// that deregistered (DeregPhases), not of Phases.
const (
	PhaseDeregSent  = "deregister_sent"
	PhaseDeregAcked = "deregister_acked"
)

// DeregPhases are the columns a variant with a deregistration adds.
var DeregPhases = []string{PhaseDeregSent, PhaseDeregAcked}

// Phases lists the timeline phases in column order.
var Phases = []string{PhaseSent, PhaseSignal, PhaseReadyFalse, PhaseListenerClosed, PhaseDrained, PhaseDeadline, PhaseExit}

// phaseHeaders are the column headers of the timeline table, by phase.
var phaseHeaders = map[string]string{
	PhaseSent:           "signal sent",
	PhaseSignal:         "app saw signal",
	PhaseReadyFalse:     "ready_false",
	PhaseListenerClosed: "listener_closed",
	PhaseDrained:        "drained",
	PhaseDeadline:       "deadline",
	PhaseExit:           "exit (engine)",
	PhaseDeregSent:      "deregister sent",
	PhaseDeregAcked:     "deregister acked",
}

// Timeline is when each shutdown phase of one run happened, in Unix ns
// (0: the phase did not happen or was not logged).
type Timeline struct {
	// T0 is the action's send time (0: no action fired).
	T0 int64
	// At holds the time of each phase of Phases (the first event of that
	// name the acted-on replica logged; PhaseSent is T0, PhaseExit the
	// engine's FinishedAt).
	At map[string]int64
	// Exited tells whether the acted-on replica exited; ExitCode is its
	// code (nil when unknown).
	Exited   bool
	ExitCode *int
}

// RunTimeline extracts the shutdown phases of one run from its Meta: the
// action's send time, the acted-on replica's first lifecycle event of each
// name, and its exit as the engine reported it. Pure.
func RunTimeline(meta record.Meta) Timeline {
	tl := Timeline{At: map[string]int64{}}
	if meta.Action != nil && meta.Action.SentNs > 0 {
		tl.T0 = meta.Action.SentNs
		tl.At[PhaseSent] = tl.T0
		if d := meta.Action.Deregister; d != nil {
			tl.At[PhaseDeregSent], tl.At[PhaseDeregAcked] = d.SentNs, d.AckedNs
		}
	}
	i := shutdown.ActedReplica(meta)
	if i < 0 {
		return tl
	}
	rep := meta.Replicas[i]
	for _, e := range rep.Events {
		switch e.Event {
		case PhaseSignal, PhaseReadyFalse, PhaseListenerClosed, PhaseDrained, PhaseDeadline:
			if _, seen := tl.At[e.Event]; !seen && e.TimeNs > 0 {
				tl.At[e.Event] = e.TimeNs
			}
		}
	}
	if rep.Exited {
		tl.Exited, tl.ExitCode = true, rep.ExitCode
		if rep.ExitedNs > 0 {
			tl.At[PhaseExit] = rep.ExitedNs
		}
	}
	return tl
}

// Ms returns a phase's time in ms after t₀, and whether there is one
// (there is none without an action or when the phase did not happen).
func (tl Timeline) Ms(phase string) (float64, bool) {
	at, ok := tl.At[phase]
	if !ok || at == 0 || tl.T0 == 0 {
		return 0, false
	}
	return float64(at-tl.T0) / 1e6, true
}

// Cell prints one phase for the timeline table: "0" for t₀ itself, "+94.1"
// (ms after t₀), "—" when absent, and "NEVER" for the exit of a replica that never exited.
func (tl Timeline) Cell(phase string) string {
	if tl.T0 == 0 {
		return "—"
	}
	if phase == PhaseExit && !tl.Exited {
		return "NEVER"
	}
	if phase == PhaseSent {
		return "0"
	}
	ms, ok := tl.Ms(phase)
	if !ok {
		return "—"
	}
	return shutdown.SignedMs(ms)
}

// writeTimeline writes the "Per variant" section of report.md: for each
// variant the phase timeline table (one row per run) and, when plots is
// not nil, links to its latency plots and any notes about plots that failed.
func writeTimeline(b *strings.Builder, res *Result, plots *PlotSet) {
	b.WriteString("\n## Per variant: phase timeline\n\n")
	b.WriteString("Milliseconds after t₀ (the moment the action was sent) at which the acted-on replica " +
		"logged each lifecycle event (its first of that name), and at which the engine saw it exit " +
		"(FinishedAt). `—`: not logged or no action; `NEVER`: did not exit within the observation window.\n")
	for i := range res.Variants {
		v := &res.Variants[i]
		fmt.Fprintf(b, "\n### %s\n\n", MarkdownCell(v.Label))
		phases := variantPhases(v)
		b.WriteString("| run | counts |")
		for _, p := range phases {
			fmt.Fprintf(b, " %s |", phaseHeaders[p])
		}
		b.WriteString(" exit code |\n|---|---|" + strings.Repeat("---|", len(phases)) + "---|\n")
		for j := range v.Runs {
			r := &v.Runs[j]
			tl := RunTimeline(r.Meta)
			counts := "yes"
			if !r.Valid {
				counts = "no"
			}
			fmt.Fprintf(b, "| %d | %s |", r.Meta.Run, counts)
			for _, p := range phases {
				fmt.Fprintf(b, " %s |", tl.Cell(p))
			}
			code := "—"
			switch {
			case tl.T0 != 0 && !tl.Exited:
				code = "NEVER"
			case tl.ExitCode != nil:
				code = fmt.Sprint(*tl.ExitCode)
			}
			fmt.Fprintf(b, " %s |\n", code)
		}
		if plots == nil {
			continue
		}
		for j := range v.Runs {
			r := &v.Runs[j]
			if link, ok := plots.Latency[RunPath(v, r)]; ok {
				fmt.Fprintf(b, "\n![latency %s run %d](%s)\n", MarkdownCell(v.Label), r.Meta.Run, link)
			}
		}
	}
	if plots != nil && len(plots.Notes) > 0 {
		b.WriteString("\n## Plot notes\n\n")
		for _, n := range plots.Notes {
			fmt.Fprintf(b, "- %s\n", MarkdownCell(n))
		}
	}
}

// variantPhases are the timeline columns of a variant: Phases, plus
// DeregPhases when one of its runs deregistered the replica from the proxy.
func variantPhases(v *Variant) []string {
	for j := range v.Runs {
		if a := v.Runs[j].Meta.Action; a != nil && a.Deregister != nil {
			return append(slices.Clone(Phases), DeregPhases...)
		}
	}
	return Phases
}
