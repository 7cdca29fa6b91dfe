package cluster

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Program is target.program cluster: the Node cluster target
// (targetapp/node/cluster.js), a node:cluster primary supervising
// CLUSTER_WORKERS workers (SUPERVISOR, TEARDOWN_MS, PROXY_IMPL and BACKEND
// in target.env). Its /proxy route's BACKEND is another replica by its
// alias, e.g. "replica-1:8080" (docs/scenarios.md, "Cluster target").
const Program scenarios.Program = "cluster"

// Entrypoint is the container entrypoint of a replica running the
// cluster target: the Node image holds /app/cluster.js beside
// /app/server.js, and its own entrypoint stays `node /app/server.js`.
// "node" is found on the container's PATH (the official base image's,
// or the engine's default for the FROM scratch image, whose node is
// /usr/bin/node).
var Entrypoint = []string{"node", "/app/cluster.js"}

func init() {
	scenarios.RegisterProgram(Program, scenarios.ProgramDef{Runtime: scenarios.RuntimeNode, Entrypoint: Entrypoint,
		Crashes: "its primary SIGKILLs a worker on " + scenarios.CrashSignal, Validate: validate})
}

// IsCluster reports whether t runs the cluster target.
func IsCluster(t scenarios.Target) bool { return t.Program == Program }

// backendReplicaRE matches a BACKEND naming a replica of the run.
var backendReplicaRE = regexp.MustCompile(`^replica-([0-9]+):([0-9]+)$`)

// validate checks that a BACKEND naming a replica names one the scenario
// starts.
func validate(s *scenarios.Spec, fail scenarios.FailFunc) {
	b, ok := s.Target.Env["BACKEND"]
	if !ok {
		return
	}
	if m := backendReplicaRE.FindStringSubmatch(b); m != nil {
		if k, err := strconv.Atoi(m[1]); err != nil || k >= s.Replicas {
			fail("target.env.BACKEND", b, fmt.Sprintf("names replica %s but replicas is %d (aliases replica-0..replica-%d)", m[1], s.Replicas, s.Replicas-1))
		}
	}
}
