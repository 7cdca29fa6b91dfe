// Package check is `shutdownlab check`: it runs a user's image (check
// IMAGE) or a Kubernetes manifest's pod (check --manifest FILE) under
// load, stops it the ways it is stopped in production, and says in plain
// words what the stop did to the clients and what would make it clean.
// Check IMAGE measures the image's stop signal and docker stop, then,
// when its verdict names a defect, the capacity variant and the signal
// search; check --manifest emulates the kubelet's termination swept over
// the endpoint's propagation delay (or, with a cluster, rolls the
// workload on it) and searches a preStop sleep that makes it safe. Each
// generated scenario runs with the same plan, runner and report as
// `shutdownlab run` (internal/runplan); the verdicts are pure functions
// of the runs' metrics.
package check
