package runner

import (
	"context"
	"io"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// agentProc is the running load agent as the run's lifecycle sees it,
// wherever its platform runs it: a container on the engine (platforms
// direct and swarm), a pod (platform kubernetes).
type agentProc interface {
	// logs streams its output until it ends: records on stdout, its own
	// lines on stderr (logsFunc).
	logs(ctx context.Context, stdout, stderr io.Writer) error
	// waitExit waits up to window for it to end; its state then.
	waitExit(ctx context.Context, window time.Duration) (bool, docker.State, error)
	// signal asks it to stop (SIGTERM: it stops starting requests, waits
	// for the ones in flight, prints its summary) or kills it (SIGKILL).
	signal(ctx context.Context, sig string) error
}

// containerAgent is the agent as a container on the engine.
type containerAgent struct {
	eng engine
	id  string
}

func (a containerAgent) logs(ctx context.Context, stdout, stderr io.Writer) error {
	return a.eng.Logs(ctx, a.id, true, stdout, stderr)
}

func (a containerAgent) waitExit(ctx context.Context, window time.Duration) (bool, docker.State, error) {
	return a.eng.WaitExit(ctx, a.id, window)
}

func (a containerAgent) signal(ctx context.Context, sig string) error {
	return a.eng.Kill(ctx, a.id, sig)
}

// containerAgentOf is run x's agent container as an agentProc (nil before
// it was created).
func containerAgentOf(x *run) agentProc {
	x.obj.mu.Lock()
	defer x.obj.mu.Unlock()
	if x.obj.agent == nil {
		return nil
	}
	return containerAgent{eng: x.r.eng, id: x.obj.agent.ID}
}
