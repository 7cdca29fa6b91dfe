// Package runner turns a scenario into measured runs: for every variant and
// repetition it creates a private Docker network, starts the target replicas
// and the load agent on it, fires the stop action at the planned moment,
// observes how the replica ends, reads its files back, removes everything it
// created, and writes the run to disk (events.json, records.jsonl, app logs)
// for the report package to read.
//
// Observations are data: a reset, a 502 or a replica that never exits is
// recorded, not returned as an error. Only harness failures (daemon
// unreachable, target never ready, container died before the action, agent
// accounting that does not add up) make a run invalid, and an invalid run is
// never counted as a pass.
package runner
