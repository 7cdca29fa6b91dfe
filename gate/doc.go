// Package gate turns a scenario result into a CI verdict.
//
// Expectations are small boolean expressions over metric names, written on
// the command line (--expect 'dropped_inflight == 0'): Parse reads one,
// Check rejects unknown metric names, Eval judges one run, Judge one variant
// (k of n runs), Evaluate a whole report.Result. ExitCode maps the verdicts
// and the invalid runs to the process exit code (0 pass, 1 an expectation
// failed, 2 the harness could not measure), WriteJUnit writes them for CI.
//
// An expectation's reference.NAME reads the median of NAME over another
// variant of the same result, the reference variant (--reference-variant;
// baseline.NAME is its deprecated spelling): any variant, not only the
// baseline variant that baseline: true adds.
//
// Comparable says whether two results can be compared at all (same
// scenario, variants and load, an old result with valid runs); Compare
// and WriteComparison then compare them metric by metric, latencies above
// a noise floor (shutdownlab gate NEW --baseline OLD: the "baseline
// result" of gate's report is that earlier result). Which metrics are
// compared, and how, is the report catalog's word (report.MetricDef.Compare
// and .Optional); gate keeps no list of metric names. CheckAvailable refuses
// an expectation on a metric a scenario can never produce.
//
// The language, its null rules and the exit codes are documented for users
// in docs/expectations.md.
//
// gate imports only report and record from shutdownlab.
package gate
