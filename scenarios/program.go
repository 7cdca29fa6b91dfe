package scenarios

import (
	"fmt"
	"regexp"
	"strconv"
)

// Program is which program of the built-in Node target a replica runs.
type Program string

// The programs.
const (
	// ProgramServer is the target itself (targetapp/node/server.js, or
	// the Go target): the default, also when target.program is absent.
	ProgramServer Program = "server"
	// ProgramCluster is the Node cluster target
	// (targetapp/node/cluster.js): a node:cluster primary supervising
	// CLUSTER_WORKERS workers (SUPERVISOR, TEARDOWN_MS, PROXY_IMPL and
	// BACKEND in target.env). Runtime node only. Its /proxy route's
	// BACKEND is another replica by its alias, e.g. "replica-1:8080"
	// (see docs/scenarios.md, "Cluster target").
	ProgramCluster Program = "cluster"
)

// IsCluster reports whether the target runs the Node cluster program.
func (t Target) IsCluster() bool { return t.Program == ProgramCluster }

// backendReplicaRE matches a BACKEND naming a replica of the run.
var backendReplicaRE = regexp.MustCompile(`^replica-([0-9]+):([0-9]+)$`)

// validateProgram checks target.program: server or cluster; cluster only
// for the built-in Node target with an exec entrypoint, and a BACKEND that
// names a replica only one the scenario starts.
func validateProgram(s *Spec, fail FailFunc) {
	t := &s.Target
	switch t.Program {
	case "", ProgramServer:
		return
	case ProgramCluster:
	default:
		fail("target.program", string(t.Program), "want server or cluster")
		return
	}
	switch {
	case t.Image != "":
		fail("target.program", string(t.Program), "only for the built-in target (target.image is set)")
	case t.Runtime != RuntimeNode:
		fail("target.program", string(t.Program), fmt.Sprintf("the cluster target is Node only (target.runtime is %s; want node)", t.Runtime))
	case t.Entrypoint == EntrypointShell:
		fail("target.program", string(t.Program), "not with target.entrypoint shell (the shell image runs server.js)")
	}
	if b, ok := t.Env["BACKEND"]; ok {
		if m := backendReplicaRE.FindStringSubmatch(b); m != nil {
			if k, err := strconv.Atoi(m[1]); err != nil || k >= s.Replicas {
				fail("target.env.BACKEND", b, fmt.Sprintf("names replica %s but replicas is %d (aliases replica-0..replica-%d)", m[1], s.Replicas, s.Replicas-1))
			}
		}
	}
}
