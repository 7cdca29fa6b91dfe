// Package probe is the raw-socket probe load as a capability (load.kind
// probe), in one place and registered once, by this package's init:
//
//   - its scenario block, load.probe (Load, its kinds, defaults and
//     validation: load.go), registered with package scenarios
//     (scenarios.RegisterLoadKind), with the properties the shared
//     checks ask of it (no mix, nothing to stagger, bounded by max_wait
//     rather than load.duration, GET /slow on the target, its setup
//     field load.probe for gate);
//   - its load driver, the probe's container (driver.go), registered with
//     the runner (runner.RegisterLoadDriver);
//   - its report capability: its catalog rows, read from probemetrics'
//     analysis of the probe line, shown for every probe run whatever
//     their values (a socket never closed is a NEVER worth a row),
//     installed by package capabilities' list.
//
// A program gets it by importing package capabilities, the one list.
// Two parts stay outside, each for a reason: the record types of the
// probe's line (record.ProbeResult, record.ProbeKind, the accounting rule
// record.CheckProbeAccounting, in record/probe.go) stay in package record,
// which every package imports (this one included), so moving them here
// would be an import cycle; and the probe program itself (package probe
// at the module's root and cmd/probe) stays where it is, since it is the
// agent binary built into its image from the embedded sources, which
// import record but none of the harness.
package probe

import (
	"fmt"

	"github.com/shutdownlab/shutdownlab/capabilities/probe/probemetrics"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Need is the capability's name: the probe_* metrics exist only in probe
// runs (load.kind probe).
const Need report.Need = "probe"

// Capability is the probe load as a report capability; its rows follow
// the core row job_committed.
var Capability = report.Capability{Part: (*probemetrics.Metrics)(nil), Name: Need, Requirement: "load.kind probe",
	OfSpec: report.LoadKindIs(LoadKind), Has: report.LoadKindRan(Need, record.LoadKindProbe),
	Finished: func(m record.Meta) bool { return m.Probe() != nil },
	Rows:     rows, After: "job_committed", Accounting: accounting,
	Compute: func(in report.ComputeInput) (any, []string) { return report.Computed(probemetrics.Compute(in.Meta)) }}

// init registers the probe load kind with the scenarios and its driver
// with the runner: the kind exists for a program that imports this
// package (through package capabilities' list).
func init() {
	scenarios.RegisterLoadKind(LoadKind, loadKindDef)
	runner.RegisterLoadDriver(LoadKind, func() runner.LoadDriver { return driver{} })
}

// accounting is the probe run's accounting rule: its one probe line,
// counted into t, and no request line (record.CheckProbeAccounting).
func accounting(in report.ComputeInput, t *record.Tally) ([]error, bool) {
	if in.Meta.LoadKind != record.LoadKindProbe {
		return nil, false
	}
	if p := in.Meta.Probe(); p != nil {
		t.Probes++
		if p.Type != record.TypeProbe {
			t.AddMalformed(fmt.Errorf("probe line of type %q", p.Type))
		}
	}
	return record.CheckProbeAccounting(t), true
}

// Of returns the run's probe metrics; nil outside a probe run.
func Of(m *report.Metrics) *probemetrics.Metrics { return report.PartOf[probemetrics.Metrics](m, Need) }

// row is one probe metric row: optional, present in every probe run.
func row(name string, k report.Kind, null, doc string, read func(*probemetrics.Metrics) report.Value) report.MetricDef {
	return report.PartDef(Need, name, k, null, report.CompareNone, doc, read)
}

// rows are the probe metric rows.
var rows = []report.MetricDef{
	row("probe_response_after_signal_ms", report.KindMs, "n/a", "probe: response end minus the signal time t",
		func(p *probemetrics.Metrics) report.Value { return report.FloatPtrValue(p.ProbeResponseAfterSignalMs) }),
	row("probe_response_after_start_ms", report.KindMs, "n/a", "probe: response end minus the probe's load start",
		func(p *probemetrics.Metrics) report.Value { return report.FloatPtrValue(p.ProbeResponseAfterStartMs) }),
	row("probe_response_keepalive", report.KindBool, "no response", "probe: the response's Connection header was not close",
		func(p *probemetrics.Metrics) report.Value { return report.BoolPtrValue(p.ProbeResponseKeepalive) }),
	row("probe_socket_closed_after_signal_ms", report.KindMs, "NEVER", "probe: socket closed by the server minus t (NEVER: not within max_wait)",
		func(p *probemetrics.Metrics) report.Value {
			return report.FloatPtrValue(p.ProbeSocketClosedAfterSignalMs)
		}),
	row("probe_socket_closed_after_response_ms", report.KindMs, "NEVER", "probe: socket closed minus response end (idle time)",
		func(p *probemetrics.Metrics) report.Value {
			return report.FloatPtrValue(p.ProbeSocketClosedAfterResponseMs)
		}),
	row("probe_server_closed", report.KindBool, "", "probe: the server ended the socket (eof or reset)",
		func(p *probemetrics.Metrics) report.Value { return report.BoolValue(p.ProbeServerClosed) }),
}
