// Package reproduce re-measures the published shutdown measurements (P1–P12,
// the WebSocket claims W1–W6, the background-job claims J1–J5 and the
// cluster claims C1–C4 in docs/claims.md)
// on this machine and says, claim by claim and runtime by runtime, whether
// the machine agrees.
//
// Claims is the fixed table: each claim names the scenario that measures it,
// the variants that matter, and a rule — a pure function from that
// scenario's report.Result (one runtime's variants) to a Verdict. Rules judge
// shapes and orders of magnitude (drops ≥ 1, exits within 1 s, never exits
// within the window), not the published milliseconds, and every verdict
// carries its rule text and the measured min / median / max cells.
//
// Run drives the scenarios through a ScenarioRunner (DockerRunner for the
// real thing), once per runtime, judges every selected claim and writes
// REPRODUCTION.md and reproduction.csv next to the scenario result
// directories.
package reproduce
