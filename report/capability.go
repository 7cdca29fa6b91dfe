package report

import (
	"fmt"
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
// adding a capability is its own file with its Capability and one entry
// in capabilities.
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
}

// Headline is a capability's headline: its metrics, in order, and the
// text under the table (ending with the next section's heading).
type Headline struct {
	Cols []string
	Text string
}

// capabilities are the optional capabilities, in this explicit order:
// the order of their rows among rows placed after the same core row, and
// the order their headlines are tried in (first match).
var capabilities = []Capability{
	probeCapability, wsCapability, clusterCapability, rolloutCapability, jobsCapability, resourcesCapability, podCapability,
}

// Capabilities returns the capabilities, in their order.
func Capabilities() []Capability { return slices.Clone(capabilities) }

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
// an After naming no core row, or a capability without Has.
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
		case c.After != "" && !slices.ContainsFunc(core, func(d MetricDef) bool { return d.Name == c.After }):
			return fmt.Errorf("capability %q: After %q is no core row", c.Name, c.After)
		}
		seen[c.Name] = true
		for _, r := range c.Rows {
			if r.Optional != c.Name || names[r.Name] {
				return fmt.Errorf("capability %q: row %q is another capability's or taken", c.Name, r.Name)
			}
			names[r.Name] = true
		}
	}
	return nil
}

// loadKindIs is the spec test of a load kind's capability.
func loadKindIs(k scenarios.LoadKind) func(scenarios.Variant) bool {
	return func(v scenarios.Variant) bool { return v.Spec.Load.Kind == k }
}

// loadKindRan is the run test of a load kind's capability: its metrics,
// or a run of its load kind (whose metrics may not have been computed).
func loadKindRan(has func(*Metrics) bool, k string) func(*Variant, *Run) bool {
	return func(_ *Variant, r *Run) bool { return has(&r.Metrics) || r.Meta.LoadKind == k }
}

// The capabilities, each beside nothing but its rows' file.
var (
	probeCapability = Capability{Name: NeedsProbe, Requirement: "load.kind probe", OfSpec: loadKindIs(scenarios.LoadProbe),
		Has: loadKindRan(isProbeRun, record.LoadKindProbe), Rows: probeDefs, After: "job_committed"}
	wsCapability = Capability{Name: NeedsWS, Requirement: "load.kind ws", OfSpec: loadKindIs(scenarios.LoadWS),
		Has: loadKindRan(isWSMetricsRun, record.LoadKindWS), Rows: wsDefs, After: "job_committed",
		Headline: &Headline{wsHeadline, wsHeadlineText}}
	clusterCapability = Capability{Name: NeedsCluster, Requirement: "target.program cluster",
		OfSpec: func(v scenarios.Variant) bool { return v.Spec.Target.IsCluster() },
		Has:    func(_ *Variant, r *Run) bool { return isClusterRun(&r.Metrics) }, Rows: clusterDefs, After: "job_committed"}
	jobsCapability = Capability{Name: NeedsJobs, Requirement: "load.kind jobs", OfSpec: loadKindIs(scenarios.LoadJobs),
		Has: loadKindRan(isJobsMetricsRun, record.LoadKindJobs), Rows: jobsDefs, After: "job_committed",
		Headline: &Headline{jobsHeadline, jobsHeadlineText}}
	resourcesCapability = Capability{Name: NeedsResources, Requirement: "resource samples of the target (a local Docker engine)",
		Has: func(_ *Variant, r *Run) bool { return hasResources(&r.Metrics) }, Rows: resourceDefs, After: "duplicate_writes"}
	rolloutCapability = Capability{Name: NeedsRollout, Requirement: "platform swarm with action.kind rollout",
		OfSpec: func(v scenarios.Variant) bool { return v.Spec.Action.Kind == scenarios.ActionRollout },
		Has:    func(_ *Variant, r *Run) bool { return r.Meta.Rollout != nil }, Rows: rolloutDefs,
		Headline: &Headline{rolloutHeadline, rolloutHeadlineText}}
)
