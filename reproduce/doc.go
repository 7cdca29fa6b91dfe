// Package reproduce re-measures the published shutdown measurements (P1–P12,
// the WebSocket claims W1–W6, the background-job claims J1–J5 and the
// cluster claims C1–C4 in docs/claims.md)
// on this machine and says, claim by claim and runtime by runtime, whether
// the machine agrees.
//
// Claims is the table: each claim names the scenario that measures it,
// the variants that matter, and a rule — a pure function from that
// scenario's report.Result (one runtime's variants) to a Verdict, written
// with the judging API of judge.go and predicates.go (Judge, Every,
// AtLeast, …). Rules judge shapes and orders of magnitude (drops ≥ 1,
// exits within 1 s, never exits within the window), not the published
// milliseconds, and every verdict carries its rule text and the measured
// min / median / max cells.
//
// P1–P12 (HTTP shutdown) are this package's own (claims.go, rules.go).
// The others belong to the capabilities that measure them, each in its
// directory (capabilities/websockets, queuejobs, cluster: claims.go,
// rules.go), and the program installs them at start, in one explicit
// order (InstallClaims, called by capabilities.Install); this package
// imports no capability. Without them the table is P1–P12 alone.
//
// Run drives the scenarios through a ScenarioRunner (DockerRunner for the
// real thing), once per runtime, rewrites each scenario's reports with
// Options.Rebuild (report/document's), judges every selected claim and
// writes REPRODUCTION.md and reproduction.csv next to the scenario result
// directories.
package reproduce
