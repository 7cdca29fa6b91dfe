// Package gate turns a scenario result into a CI verdict.
//
// Expectations are small boolean expressions over metric names, written on
// the command line (--expect 'dropped_inflight == 0'): Parse reads one,
// Check rejects unknown metric names, Eval judges one run, Judge one variant
// (k of n runs), Evaluate a whole report.Result. ExitCode maps the verdicts
// and the invalid runs to the process exit code (0 pass, 1 an expectation
// failed, 2 the harness could not measure), WriteJUnit writes them for CI.
//
// Comparable says whether two results can be compared at all (same
// scenario, variants and load, a baseline with valid runs); Compare and
// WriteComparison then compare them metric by metric, latencies above a
// noise floor (shutdownlab gate NEW --baseline OLD). Which metrics are
// compared, and how, is the report catalog's word (report.MetricDef.Compare
// and .Optional); gate keeps no list of metric names. CheckAvailable refuses
// an expectation on a metric a scenario can never produce.
//
// The language, its null rules and the exit codes are documented for users
// in docs/expectations.md.
//
// gate imports only report and record from shutdownlab.
package gate
