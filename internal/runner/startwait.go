package runner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// startSlack is how long past the ready timeout the runner waits for the
// load's start line: the agent's own ready wait ends first, and its exit
// says why.
const startSlack = 15 * time.Second

// containerWatcher is the part of the engine the start wait uses.
type containerWatcher interface {
	WaitExit(ctx context.Context, id string, window time.Duration) (bool, docker.State, error)
	Logs(ctx context.Context, id string, follow bool, stdout, stderr io.Writer) error
}

// startWait waits for the load's start line while watching what can keep
// it from ever coming: a replica that exits (a broken image: exit code 3,
// a crash at start-up), the agent or probe exiting (its ready wait timed
// out: the target's ready path never answered 200), the agent output that
// cannot be written, Ctrl-C, and a bound.
type startWait struct {
	eng      containerWatcher
	replicas []*docker.Container // replica i is replicaAlias(i)
	agent    agentProc
	loadName string
	timeout  time.Duration
	stream   *agentStream
	// streamEnded is closed when the agent's output stream ended (its
	// last stderr lines are then all in the stream's tail).
	streamEnded <-chan struct{}
	progress    Progress
}

// exitSeen is a watched container that exited: replica index, or -1 for the
// agent.
type exitSeen struct {
	replica int
	state   docker.State
}

// wait returns nil once the start line arrived, else an error saying why it
// never will: errInvalid for the run's failures, ctx's error on Ctrl-C.
func (w *startWait) wait(ctx context.Context) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	exits := make(chan exitSeen, len(w.replicas)+1)
	watch := func(i int, c *docker.Container) {
		exited, st, err := w.eng.WaitExit(wctx, c.ID, w.timeout)
		if err == nil && exited {
			exits <- exitSeen{i, st}
		}
	}
	for i, c := range w.replicas {
		go watch(i, c)
	}
	if w.agent != nil {
		go func() {
			exited, st, err := w.agent.waitExit(wctx, w.timeout)
			if err == nil && exited {
				exits <- exitSeen{-1, st}
			}
		}()
	}
	t := time.NewTimer(w.timeout)
	defer t.Stop()
	select {
	case <-w.stream.started:
		return nil
	case <-w.stream.outputFailed:
		return w.stream.OutputErr()
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return invalidf("%s printed no start line within %s", w.loadName, w.timeout)
	case e := <-exits:
		select {
		case <-w.stream.started:
			return nil // it exited after the load started: an observation
		default:
		}
		if e.replica < 0 {
			return w.agentExited(e.state)
		}
		return w.replicaExited(ctx, e.replica, e.state)
	}
}

// replicaExited makes the error for replica i that exited before the load
// started, quoting its last log lines (also printed on the progress output).
func (w *startWait) replicaExited(ctx context.Context, i int, st docker.State) error {
	return exitedBeforeReady(ctx, w.eng, w.progress, replicaAlias(i), w.replicas[i].ID, st)
}

// exitedBeforeReady is the error for a replica that exited before it was
// ready: "replica-0 exited with code 3 before it was ready; last lines: a |
// b". The lines are printed on p as well.
func exitedBeforeReady(ctx context.Context, eng containerWatcher, p Progress, alias, id string, st docker.State) error {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var out tailBuffer
	out.max = tailLines
	lerr := eng.Logs(lctx, id, false, &out, &out) // one buffer: the lines stay in order
	lines := out.Lines()
	what := fmt.Sprintf("%s exited with code %d before it was ready", alias, st.ExitCode)
	if st.OOMKilled {
		what += " (OOM-killed)"
	}
	if st.Error != "" {
		what += " (engine: " + st.Error + ")"
	}
	return invalidf("%s; %s", what, quoteLines(p, what, lines, lerr))
}

// agentExited is the error for the agent (or probe) that exited before its
// start line, quoting its last stderr lines: with -wait-ready, the last one
// says what the ready path answered ("GET /readyz: 500 Internal Server
// Error") or why it could not be reached.
func (w *startWait) agentExited(st docker.State) error {
	// Its last stderr lines may still be in the stream: wait for its end.
	if w.streamEnded != nil {
		t := time.NewTimer(streamGrace)
		select {
		case <-w.streamEnded:
		case <-t.C:
		}
		t.Stop()
	}
	what := fmt.Sprintf("%s exited with code %d before the load started", w.loadName, st.ExitCode)
	return invalidf("%s; %s", what, quoteLines(w.progress, what, w.stream.StderrTail(), nil))
}

// quoteLines prints a container's last lines under what on p and returns
// them for an error message: "last lines: a | b".
func quoteLines(p Progress, what string, lines []string, readErr error) string {
	switch {
	case readErr != nil:
		p.Logf("%s (its log could not be read: %v)", what, readErr)
		return "its log could not be read: " + readErr.Error()
	case len(lines) == 0:
		p.Logf("%s (it printed nothing)", what)
		return "it printed nothing"
	}
	p.Logf("%s; its last lines:", what)
	for _, l := range lines {
		p.Logf("  | %s", l)
	}
	return "last lines: " + strings.Join(lines, " | ")
}
