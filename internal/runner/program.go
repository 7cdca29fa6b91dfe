package runner

import "github.com/shutdownlab/shutdownlab/scenarios"

// ClusterEntrypoint is the container entrypoint of a replica running the
// Node cluster target (target.program cluster): the Node image holds
// /app/cluster.js beside /app/server.js, and its own entrypoint stays
// `node /app/server.js`. "node" is found on the container's PATH (the
// official base image's, or the engine's default for the FROM scratch
// image, whose node is /usr/bin/node).
var ClusterEntrypoint = []string{"node", "/app/cluster.js"}

// programEntrypoint is the entrypoint override of a target replica: nil
// (the image's own) unless the scenario runs the cluster program or
// gives a user image a command (target.command, a manifest's command).
func programEntrypoint(t scenarios.Target) []string {
	switch {
	case t.IsCluster():
		return ClusterEntrypoint
	case t.Command != nil:
		return t.Command
	}
	return nil
}

// programArgs is the CMD override of a target replica: target.args (a
// manifest's args), nil for the image's own. With target.command and no
// args the engine runs the command alone, as the kubelet does.
func programArgs(t scenarios.Target) []string { return t.Args }
