// Package report turns saved runs into numbers and documents: it loads a
// scenario result directory (Load), computes each run's metrics as pure
// functions of its record.Meta and request records (Compute), summarises
// them across the valid runs of each variant as min / median / max (Spreads),
// and writes summary.json, report.md, report.csv and spread.csv (Write),
// with the sections it is given (Section). report/document assembles a
// whole report, every section included, and rebuilds it from disk without
// Docker.
//
// The metric names, kinds and exact definitions are listed by Defs (the
// catalog: the core rows of catalog.go, and each installed capability's
// rows) and documented for users in docs/metrics.md.
//
// The optional families of metrics are capabilities (Capability): report
// defines how one is registered — its rows, headline, input of the run
// directory, accounting rule and its part of Metrics (parts.go) — and is
// handed the program's list at start (Install; capabilities.Install, the
// one list, where each capability lives in its own directory). It names
// none of them, and with none installed it reports the core alone. Below it: report/shutdown (the acted-on replica, the signal's
// delivery window and time). Of the rest of shutdownlab it imports only
// record, scenarios and two leaves: internal/resultdir (the result
// directory's layout and files) and internal/orderedjson (the spread
// table's ordered JSON), plus gonum's stat package: it never needs Docker,
// and draws nothing. Above it: report/plotkit (the drawing kit),
// report/plots (failures.png, latency.png), the capabilities' sections,
// report/sections/deregistration, and report/document, which puts them
// together.
package report
