package gate

import (
	"github.com/shutdownlab/shutdownlab/report"
)

// Requirement is what a scenario must have for an optional metric
// (report.MetricDef.Optional) to exist at all.
type Requirement string

// The requirements of the core rows' optional metrics; each
// capability's is its report.Capability's Requirement.
const (
	// NeedsWrites: the write reconciliation (writes, ghost_writes, ...)
	// exists only when load.mix has a POST /write.
	NeedsWrites Requirement = "a POST /write in load.mix"
	// NeedsBaseline: baseline_p99_ms and p99_vs_baseline exist only in a
	// scenario with a baseline variant (baseline: true).
	NeedsBaseline Requirement = "a baseline variant (baseline: true)"
)

// Requires returns what a scenario needs for metric name to exist, or ""
// when every run has it (or the name is unknown), as the catalog's
// report.MetricDef.Optional says.
func Requires(name string) Requirement {
	d, _ := report.Lookup(name)
	if n, ok := needOf(d.Optional); ok {
		return n.requirement
	}
	return ""
}

// CheckAvailable reports, as an *Error at its column, the first metric of
// e (reference.NAME included) that a scenario with capabilities c can never
// produce: such an expectation could only fail on null, after the whole
// run time was spent, so it is refused before anything starts.
func (e *Expectation) CheckAvailable(c Capabilities) error {
	for _, r := range e.refs {
		d, _ := report.Lookup(r.name)
		if req := Requires(r.name); req != "" && !c.Has(d.Optional) {
			return errAt(e.Source, r.p, "metric %q cannot exist in this scenario: it needs %s", r.name, req)
		}
	}
	return nil
}
