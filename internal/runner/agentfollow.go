package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
)

// logsFunc streams a container's output into stdout and stderr until the
// container stops or ctx ends (Engine.Logs with follow).
type logsFunc func(ctx context.Context, stdout, stderr io.Writer) error

// Bounds on the end of the agent's output stream.
const (
	// streamGrace is how long the stream may take to end once the agent
	// exited (or was told to stop) before it is cut.
	streamGrace = 10 * time.Second
	// streamCutWait is how long a cut stream may take to return.
	streamCutWait = 5 * time.Second
)

// agentFollow is the agent's output stream running in the background.
type agentFollow struct {
	done   chan struct{} // closed when the stream has ended and files are closed
	cancel context.CancelFunc
	err    error // the stream's own error, when it was not cut; read after done
}

// follow streams the agent's output through s in the background: stdout
// as records into rec, stderr into logf. The stream ends when the agent
// exits, when bound passes, or when the follow is cut; closeAll then runs
// (closing and compressing files). Nothing written to s or its stderr
// writer blocks the stream (see agentStream), so it always ends.
func (s *agentStream) follow(ctx context.Context, bound time.Duration, logs logsFunc,
	rec io.Writer, recName string, logf io.Writer, logName string, closeAll func()) *agentFollow {
	s.setOutput(rec, recName)
	// The stream uses a context that survives Ctrl-C so the agent's final
	// records still arrive after it was told to stop; bound and cut end it.
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
	f := &agentFollow{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(f.done)
		defer cancel()
		err := logs(lctx, s, s.stderr(logf, logName))
		s.flush()
		if lctx.Err() == nil {
			f.err = err
		}
		closeAll()
	}()
	return f
}

// wait waits for the stream to end, for at most grace; then it cuts the
// stream and waits at most streamCutWait more. It reports whether the
// stream ended (false: it was abandoned, still running).
func (f *agentFollow) wait(grace time.Duration) bool {
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-f.done:
		return true
	case <-t.C:
	}
	f.cancel()
	t2 := time.NewTimer(streamCutWait)
	defer t2.Stop()
	select {
	case <-f.done:
		return true
	case <-t2.C:
		return false
	}
}

// followAgent streams the agent's stdout into records.jsonl and its stderr
// into agent.log, in the background, until the agent exits (bounded by the
// load's length; see agentStream.follow). Output errors never block the
// stream: they are kept in x.stream (OutputErr).
func (x *run) followAgent(ctx context.Context, ap agentProc) (*agentFollow, error) {
	recordsPath := filepath.Join(x.dir, recordsFile)
	rec, err := os.Create(recordsPath)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", recordsFile, err)
	}
	logf, err := os.Create(filepath.Join(x.dir, agentLogFile))
	if err != nil {
		rec.Close()
		return nil, fmt.Errorf("creating %s: %w", agentLogFile, err)
	}
	closeAll := func() {
		if err := rec.Close(); err != nil {
			x.stream.fail(recordsFile, err)
		}
		if err := logf.Close(); err != nil {
			x.stream.fail(agentLogFile, err)
		}
		if x.stream.OutputErr() != nil {
			return
		}
		if err := resultdir.CompressRecords(x.dir); err != nil {
			x.r.opts.Progress.Logf("records: %v", err)
		}
	}
	bound := x.startBound() + x.load.bound(x.spec) + 2*agentExitSlack
	return x.stream.follow(ctx, bound, ap.logs, rec, recordsFile, logf, agentLogFile, closeAll), nil
}

// endFollow waits (bounded) for the agent's output stream to end, cutting
// it if it does not, and reports a stream that failed by itself.
func (x *run) endFollow() {
	p := x.r.opts.Progress
	if !x.follow.wait(streamGrace) {
		p.Logf("%s output stream did not end within %s of being cut; abandoned", x.load.name(), streamCutWait)
		return
	}
	if err := x.follow.err; err != nil {
		p.Logf("%s output stream: %v", x.load.name(), err)
	}
}
