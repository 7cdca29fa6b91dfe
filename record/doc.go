// Package record holds the plain data types that flow between shutdownlab's
// stages: one Request per HTTP request the load agent started, the agent's
// closing Summary, the probe's ProbeResult, the target app's lifecycle
// Events, and the per-run Meta written by the runner. Every type here is
// JSON on disk, so a report can be rebuilt from a saved run without Docker.
//
// It also defines, once, every name that crosses a process boundary (the
// line types, the lifecycle event names, the kinds Meta records: the core
// ones in wire.go, a capability's in its own file beside its records)
// and the rules both the runner and report apply to that data: how a line
// decodes (Line), which classes failed (Class.Failed), and whether a run's
// output accounts for itself (CheckAccounting, CheckProbeAccounting).
//
// This package imports nothing else from shutdownlab; loadgen, report and the
// runner all import it.
package record
