// Package resources is the acted-on replica's resource samples as a
// capability: what its processes held (open fds, threads, resident
// memory), computed by resourcemetrics from the samples file its run hook
// (sampler.go) wrote into the run directory (resources.jsonl; a local
// engine whose /proc this host shares), shown only when some run has
// samples.
package resources

import (
	"github.com/shutdownlab/shutdownlab/capabilities/resources/resourcemetrics"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
)

// Need is the capability's name: the resource metrics exist only for
// runs whose target processes were sampled (record.Meta.Resources says
// when they were not).
const Need report.Need = "resources"

// Capability is the resource samples as a report capability; its rows
// follow the core row duplicate_writes. No spec can tell beforehand
// whether the engine lets the host sample (OfSpec is nil), so an
// expectation on them is never refused.
var Capability = report.Capability{Part: (*resourcemetrics.Metrics)(nil), Name: Need,
	Requirement: "resource samples of the target (a local Docker engine)",
	Has:         func(_ *report.Variant, r *report.Run) bool { return Of(&r.Metrics) != nil },
	Rows:        rows, After: "duplicate_writes",
	Input: readSamples,
	Compute: func(in report.ComputeInput) (any, []string) {
		s, ok := in.Input.(*samples)
		if !ok {
			return nil, nil
		}
		return report.Computed(resourcemetrics.Compute(in.Meta, in.Requests, s.samples), nil)
	}}

// Of returns the acted-on replica's resource metrics; nil without
// samples.
func Of(m *report.Metrics) *resourcemetrics.Metrics {
	return report.PartOf[resourcemetrics.Metrics](m, Need)
}

// samples are a run directory's resource samples (none: no samples file).
type samples struct{ samples []record.ResourceSample }

// Take takes no line: the samples have a file of their own.
func (*samples) Take(*record.Line) bool { return false }

// readSamples reads run directory rd's samples file.
func readSamples(rd string) (report.RunInput, error) {
	s, err := report.ReadResourceSamples(rd)
	return &samples{s}, err
}

// row is one resource metric row: optional, present in every run with
// samples, and null in the others with the reason "not sampled".
func row(name string, k report.Kind, doc string, read func(*resourcemetrics.Metrics) report.Value) report.MetricDef {
	d := report.PartDef(Need, name, k, "n/a", report.CompareNone, doc, read)
	d.Read = func(m *report.Metrics) report.Value {
		if r := Of(m); r != nil {
			return read(r)
		}
		return report.Value{Null: true, Why: "not sampled"}
	}
	return d
}

// rows are the resource metric rows.
var rows = []report.MetricDef{
	row("fds_at_signal", report.KindCount, "open fds of the acted-on replica's processes in the last sample at or before the signal",
		func(r *resourcemetrics.Metrics) report.Value { return report.IntPtrValue(r.FDsAtSignal) }),
	row("fd_growth_per_abort", report.KindRatio, "(fds at load end, or at the action if before it, - fds at load start) / aborted requests ended by then",
		func(r *resourcemetrics.Metrics) report.Value { return report.FloatPtrValue(r.FDGrowthPerAbort) }),
	row("peak_rss_bytes", report.KindCount, "largest resident memory total of the acted-on replica's processes",
		func(r *resourcemetrics.Metrics) report.Value { return report.IntPtrValue(r.PeakRSSBytes) }),
	row("threads_at_signal", report.KindCount, "threads of the acted-on replica's processes in the last sample at or before the signal",
		func(r *resourcemetrics.Metrics) report.Value { return report.IntPtrValue(r.ThreadsAtSignal) }),
}
