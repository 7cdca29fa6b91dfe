// Package record holds the plain data types that flow between shutdownlab's
// stages: one Request per HTTP request the load agent started, the agent's
// closing Summary, the target app's lifecycle Events, and the per-run Meta
// written by the runner. Every type here is JSON on disk, so a report can be
// rebuilt from a saved run without Docker.
//
// This package imports nothing else from shutdownlab; loadgen, report and the
// runner all import it.
package record
