package gate

import (
	"github.com/shutdownlab/shutdownlab/report"
)

// Requirement is what a scenario must have for an optional metric
// (report.MetricDef.Optional) to exist at all.
type Requirement string

// The requirements of the optional metrics.
const (
	// NeedsWrites: the write reconciliation (writes, ghost_writes, ...)
	// exists only when load.mix has a POST /write.
	NeedsWrites Requirement = "a POST /write in load.mix"
	// NeedsProbe: the probe_* metrics exist only with load.kind probe.
	NeedsProbe Requirement = "load.kind probe"
	// NeedsBaseline: baseline_p99_ms and p99_vs_baseline exist only in a
	// scenario with a baseline variant (baseline: true).
	NeedsBaseline Requirement = "a baseline variant (baseline: true)"
	// NeedsWS: the ws_* metrics exist only with load.kind ws.
	NeedsWS Requirement = "load.kind ws"
	// NeedsResources: the resource metrics (fds_at_signal, ...) exist only
	// when the target's processes could be sampled. Any scenario can have
	// them; whether a run did depends on the engine (a local one whose
	// /proc this host shares), so nothing is refused for it beforehand.
	NeedsResources Requirement = "resource samples of the target (a local Docker engine)"
	// NeedsCluster: the cluster metrics (forks_after_signal, ...) exist
	// only for the Node cluster target.
	NeedsCluster Requirement = "target.program cluster"
	// NeedsJobs: the job metrics (jobs_*, budget_fits, ...) exist only
	// with load.kind jobs.
	NeedsJobs Requirement = "load.kind jobs"
	// NeedsRollout: the rollout metrics (rollout_failed, ...) exist only
	// for a Swarm rollout.
	NeedsRollout Requirement = "platform swarm with action.kind rollout"
	// NeedsPod: the pod metrics (pod_failed, ...) exist only for a pod's
	// termination.
	NeedsPod Requirement = "action.kind terminate"
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
// e (baseline.NAME included) that a scenario with capabilities c can never
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
