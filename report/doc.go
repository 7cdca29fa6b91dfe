// Package report turns saved runs into numbers and documents: it loads a
// scenario result directory (Load), computes each run's metrics as pure
// functions of its record.Meta and request records (Compute), summarises
// them across the valid runs of each variant as min / median / max (Spreads),
// and writes summary.json, report.md, report.csv and spread.csv (Write),
// with the capabilities' sections it is given (Section). report/document
// assembles a whole report, every section included, and rebuilds it from
// disk without Docker.
//
// The metric names, kinds and exact definitions are listed by Defs (the
// catalog: the core rows, and each capability's rows in capabilitydefs.go)
// and documented for users in docs/metrics.md.
//
// Below it, and imported by it: report/shutdown (the acted-on replica, the
// signal's delivery window and time) and each capability's analysis,
// whose metrics Metrics holds as that capability's part (parts.go;
// capabilities/probe/probemetrics, wsmetrics, clustermetrics, jobsmetrics,
// resourcemetrics, rolloutmetrics, podmetrics). Of the
// rest of shutdownlab it imports only record and two leaves:
// internal/resultdir (the result directory's layout and files) and
// internal/orderedjson (the spread table's ordered JSON), plus gonum's stat
// package: it never needs Docker, and draws nothing. Above it: report/plotkit
// (the drawing kit), report/plots (failures.png, latency.png),
// report/sections/… (each capability's section of report.md and its
// plots), and report/document, which puts them together.
package report
