package gate

import (
	"fmt"
	"slices"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// need is one row of the needs table: an optional family of metrics
// (report.MetricDef.Optional), what a user must put in a scenario for it
// to exist, and how a variant's spec and a saved run show that they have
// it. The CLI's check before a run, its check of a saved result and the
// gate all read this table.
type need struct {
	name        report.Need
	requirement Requirement
	// ofSpec reports whether a variant with this spec produces the
	// metrics; nil: no spec can tell beforehand, so they are never
	// refused (resources depend on the engine, not the scenario).
	ofSpec func(v scenarios.Variant) bool
	// ofRun reports whether a saved run of variant v has them.
	ofRun func(v *report.Variant, r *report.Run) bool
}

// coreNeeds are the core rows' two needs: writes, a baseline.
var coreNeeds = []need{
	{report.NeedsWrites, NeedsWrites, specHasWrites,
		func(_ *report.Variant, r *report.Run) bool { return r.Metrics.Writes != nil }},
	{report.NeedsBaseline, NeedsBaseline, func(v scenarios.Variant) bool { return v.Baseline },
		func(v *report.Variant, _ *report.Run) bool { return v.IsBaseline() }},
}

// needs is the table: coreNeeds, then every capability installed in
// report, as it declares itself (report.Capability). It is read when
// asked, not at init, so it has whatever the program installed at start.
func needs() []need {
	out := slices.Clone(coreNeeds)
	for _, c := range report.Capabilities() {
		out = append(out, need{c.Name, Requirement(c.Requirement), c.OfSpec, c.Has})
	}
	return out
}

// specHasWrites: a POST /write in the mix of a load that sends the mix
// (scenarios.LoadSpec.SendsMix: every kind but probe and ws).
func specHasWrites(v scenarios.Variant) bool {
	if !v.Spec.Load.SendsMix() {
		return false
	}
	for _, r := range v.Spec.Load.Mix {
		if report.IsWrite(&record.Request{Method: r.Method, Path: r.Path}) {
			return true
		}
	}
	return false
}

// needOf is the table's row for name.
func needOf(name report.Need) (need, bool) {
	for _, n := range needs() {
		if n.name == name {
			return n, true
		}
	}
	return need{}, false
}

// checkNeeds fails on a need named twice or without a requirement.
func checkNeeds() error {
	seen := map[report.Need]bool{}
	for _, n := range needs() {
		if seen[n.name] || n.name == "" || n.requirement == "" || n.ofRun == nil {
			return fmt.Errorf("gate: needs table: %q is duplicated or incomplete", n.name)
		}
		seen[n.name] = true
	}
	return nil
}

// Capabilities is the set of optional metric families (report.Need) a
// scenario or result can produce, in at least one of its variants.
type Capabilities map[report.Need]bool

// Has reports whether c can produce the metrics of need n. report.Always,
// and a need no spec can tell beforehand (resources), always can.
func (c Capabilities) Has(n report.Need) bool {
	row, ok := needOf(n)
	if !ok || row.ofSpec == nil {
		return true
	}
	return c[n]
}

// Merge returns the union of c and others.
func (c Capabilities) Merge(others ...Capabilities) Capabilities {
	out := Capabilities{}
	for _, set := range append([]Capabilities{c}, others...) {
		for n, ok := range set {
			out[n] = out[n] || ok
		}
	}
	return out
}

// CapabilitiesOfVariants says which optional metrics the variants can
// produce, from their specs.
func CapabilitiesOfVariants(vs []scenarios.Variant) Capabilities {
	c := Capabilities{}
	for _, v := range vs {
		for _, n := range needs() {
			if n.ofSpec != nil && n.ofSpec(v) {
				c[n.name] = true
			}
		}
	}
	return c
}

// CapabilitiesOfSpecs is CapabilitiesOfVariants for bare specs (a saved
// result's effective.json), none of them a baseline variant.
func CapabilitiesOfSpecs(specs []scenarios.Spec) Capabilities {
	vs := make([]scenarios.Variant, len(specs))
	for i, sp := range specs {
		vs[i] = scenarios.Variant{Spec: sp}
	}
	return CapabilitiesOfVariants(vs)
}

// CapabilitiesOf reads the capabilities of a saved result from its runs.
func CapabilitiesOf(res *report.Result) Capabilities {
	c := Capabilities{}
	for i := range res.Variants {
		v := &res.Variants[i]
		for j := range v.Runs {
			for _, n := range needs() {
				if n.ofRun(v, &v.Runs[j]) {
					c[n.name] = true
				}
			}
		}
	}
	return c
}
