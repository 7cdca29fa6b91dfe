package runner

import "github.com/shutdownlab/shutdownlab/scenarios"

// programEntrypoint is the entrypoint override of a target replica: nil
// (the image's own) unless the scenario runs a program other than the
// server (its ProgramDef.Entrypoint: the Node cluster supervisor's
// `node /app/cluster.js`) or gives a user image a command
// (target.command, a manifest's command).
func programEntrypoint(t scenarios.Target) []string {
	if d, ok := scenarios.ProgramOf(t.Program); ok {
		return d.Entrypoint
	}
	return t.Command
}

// programArgs is the CMD override of a target replica: target.args (a
// manifest's args), nil for the image's own. With target.command and no
// args the engine runs the command alone, as the kubelet does.
func programArgs(t scenarios.Target) []string { return t.Args }
