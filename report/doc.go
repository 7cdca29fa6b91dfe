// Package report turns saved runs into numbers and documents: it loads a
// scenario result directory (Load), computes each run's metrics as pure
// functions of its record.Meta and request records (Compute), summarises
// them across the valid runs of each variant as min / median / max (Spreads),
// and writes summary.json, report.md, report.csv and spread.csv (Write),
// with the capabilities' sections it is given (Section). report/document
// assembles a whole report, every section included, and rebuilds it from
// disk without Docker.
//
// The metric names, kinds and exact definitions are listed by Defs and
// documented for users in docs/metrics.md.
//
// Of shutdownlab, report imports only record and three leaves: budget (the
// shutdown budget audit), internal/resultdir (the result directory's
// layout and files) and internal/orderedjson (the spread table's ordered
// JSON), plus gonum's stat package: it never needs Docker, and draws
// nothing. The packages around it draw: report/plotkit (the drawing kit),
// report/plots (failures.png, latency.png), report/sections/* (each
// capability's section of report.md and its plots), and report/document
// puts them together.
package report
