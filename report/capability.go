package report

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// A Capability is one optional family of metrics — what a load kind, a
// target program, an action or the engine adds to a run's report —
// declared once, under one name: what a scenario needs for it, how a saved
// run shows it, its catalog rows and where they go, and the headline a
// result made only of its runs leads with. The catalog (Defs), the
// headline and the gate's checks of expectations all read this one value;
// adding a capability is its own package with its Capability and one entry
// in the list of package capabilities.
type Capability struct {
	// Name is the capability's one spelling; its rows' Optional.
	Name Need
	// Requirement says, to a user, what a scenario must have for the
	// rows to exist ("load.kind ws").
	Requirement string
	// OfSpec reports whether a variant with this spec produces the rows;
	// nil: no spec can tell beforehand (resources depend on the engine),
	// so an expectation on them is never refused.
	OfSpec func(v scenarios.Variant) bool
	// Has reports whether a saved run of variant v has them.
	Has func(v *Variant, r *Run) bool
	// Rows are its catalog rows, each with Optional == Name; they follow
	// the core row After ("": the end of the catalog), after the rows of
	// the capabilities listed before it in capabilities with the same
	// After.
	Rows  []MetricDef
	After string
	// Headline, when set, leads report.md and the terminal table of a
	// result whose every run has the capability (see headlineOf).
	Headline *Headline
	// HeadlineExtra are its rows the HTTP headline shows, after the
	// core's, when some run has a value (a WebSocket load behind a
	// rolled proxy).
	HeadlineExtra []string
	// Compute returns the capability's part of a run's metrics (its
	// typed metrics, read back through its accessor) and its notes; a nil
	// part: the run does not have them. Pure, like Compute, but for what
	// its Input read.
	Compute func(in ComputeInput) (part any, notes []string)
	// Accounting, when set, is the accounting rule of the capability's
	// runs, in place of the agent's (record.CheckAccounting): claimed
	// false leaves a run that is not the capability's to the next
	// capability's rule, and then to the agent's. It may count its own
	// lines into t. in.Core has the request counts, no part yet.
	Accounting func(in ComputeInput, t *record.Tally) (errs []error, claimed bool)
	// Input, when set, makes what Compute reads of run directory rd
	// beyond events.json and the request records: files of its own, read
	// here (the resource samples), and the records file's lines it takes
	// (RunInput.Take). Load hands it to Compute as ComputeInput.Input;
	// Compute without a run directory (report.Compute) hands nil.
	Input func(rd string) (RunInput, error)
	// Finished, when set, reports whether the run's record holds the
	// closing line of the capability's load (the probe's line, the ws
	// totals), as the agent's summary is the agent's: RunValidity then
	// blames the runner, not an unfinished run, for an invalid one.
	Finished func(meta record.Meta) bool
	// Part is a nil pointer of the type of its part
	// ((*wsmetrics.Metrics)(nil)): the one type SetPart takes under Name,
	// and the fields the catalog's tests read.
	Part any
}

// ComputeInput is what a capability's Compute and Accounting read: the
// run's record, its request records, the core metrics computed before any
// part (Core: read only), and the capability's own input
// (Capability.Input; nil without a run directory, or without Input).
type ComputeInput struct {
	Meta     record.Meta
	Requests []record.Request
	Core     *Metrics
	Input    RunInput
}

// A RunInput is what a capability reads of a run directory beyond
// events.json and the request records (Capability.Input).
type RunInput interface {
	// Take is offered each decoded line of the records file before the
	// core sees it, in the capabilities' order; true: the line is the
	// input's, and neither another input nor the core sees it.
	Take(l *record.Line) bool
}

// Computed is a Compute result: nil, not a typed nil, without a part.
func Computed[T any](p *T, notes []string) (any, []string) {
	if p == nil {
		return nil, nil
	}
	return p, notes
}

// Headline is a capability's headline: its metrics, in order, and the
// text under the table (ending with the next section's heading).
type Headline struct {
	Cols []string
	Text string
}

// Capabilities returns the installed capabilities, in their order
// (Install); none before Install.
func Capabilities() []Capability { return slices.Clone(installed()) }

// catalogOf assembles the catalog: the core rows, each capability's rows
// right after its After row. It panics, at program start, on a
// capability that is not well formed (checkCapabilities).
func catalogOf(core []MetricDef, caps []Capability) []MetricDef {
	if err := checkCapabilities(core, caps); err != nil {
		panic("report: " + err.Error())
	}
	var out []MetricDef
	for _, d := range core {
		out = append(out, d)
		for _, c := range caps {
			if c.After == d.Name {
				out = append(out, c.Rows...)
			}
		}
	}
	for _, c := range caps {
		if c.After == "" {
			out = append(out, c.Rows...)
		}
	}
	return out
}

// checkCapabilities fails on a name given twice or empty, a row whose
// Optional is not its capability's, a row name the catalog already has,
// an After naming no core row, a capability without Has, one whose Part
// is no pointer to a struct, or a HeadlineExtra naming none of its rows.
func checkCapabilities(core []MetricDef, caps []Capability) error {
	names := map[string]bool{}
	for _, d := range core {
		names[d.Name] = true
	}
	seen := map[Need]bool{Always: true, NeedsWrites: true, NeedsBaseline: true}
	for _, c := range caps {
		switch {
		case seen[c.Name]:
			return fmt.Errorf("capability %q: the name is empty or taken", c.Name)
		case c.Has == nil || c.Requirement == "":
			return fmt.Errorf("capability %q: no Has or no Requirement", c.Name)
		case c.Part == nil || reflect.TypeOf(c.Part).Kind() != reflect.Pointer || reflect.TypeOf(c.Part).Elem().Kind() != reflect.Struct:
			return fmt.Errorf("capability %q: Part %T is no pointer to its metrics struct", c.Name, c.Part)
		case c.After != "" && !slices.ContainsFunc(core, func(d MetricDef) bool { return d.Name == c.After }):
			return fmt.Errorf("capability %q: After %q is no core row", c.Name, c.After)
		}
		seen[c.Name] = true
		for _, h := range c.HeadlineExtra {
			if !slices.ContainsFunc(c.Rows, func(d MetricDef) bool { return d.Name == h }) {
				return fmt.Errorf("capability %q: HeadlineExtra %q is none of its rows", c.Name, h)
			}
		}
		for _, r := range c.Rows {
			if r.Optional != c.Name || names[r.Name] {
				return fmt.Errorf("capability %q: row %q is another capability's or taken", c.Name, r.Name)
			}
			names[r.Name] = true
		}
	}
	return nil
}

// LoadKindIs is the spec test (OfSpec) of a load kind's capability.
func LoadKindIs(k scenarios.LoadKind) func(scenarios.Variant) bool {
	return func(v scenarios.Variant) bool { return v.Spec.Load.Kind == k }
}

// LoadKindRan is the run test (Has) of load kind k's capability name:
// its part, or a run of its load kind (whose metrics may not have been
// computed).
func LoadKindRan(name Need, k string) func(*Variant, *Run) bool {
	return func(_ *Variant, r *Run) bool { return r.Metrics.parts[name] != nil || r.Meta.LoadKind == k }
}
