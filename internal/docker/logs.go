package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// Logs copies a container's output, demultiplexed, into stdout and stderr
// (nil discards that stream). With follow it keeps streaming until the
// container stops or ctx ends (a ctx ending is then not an error);
// otherwise it returns after the output so far. Containers must not use a
// TTY (Run never allocates one).
func (e *Engine) Logs(ctx context.Context, id string, follow bool, stdout, stderr io.Writer) error {
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	rc, err := e.cli.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Follow: follow})
	if err != nil {
		return fmt.Errorf("container logs %s: %w", id, wrapNotFound(err))
	}
	defer rc.Close()
	if _, err := stdcopy.StdCopy(stdout, stderr, rc); err != nil {
		if follow && ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("container logs %s: %w", id, err)
	}
	return nil
}

// LogsAll returns everything the container wrote so far (typically after it
// exited), split into stdout and stderr.
func (e *Engine) LogsAll(ctx context.Context, id string) (stdout, stderr []byte, err error) {
	var o, er bytes.Buffer
	err = e.Logs(ctx, id, false, &o, &er)
	return o.Bytes(), er.Bytes(), err
}

// WaitLog follows the container's stdout until a line containing substr
// appears, for at most timeout. If the container stops first the error
// reads "container <name> exited with code N before logging "<substr>":
// <last lines>"; on timeout it quotes the last lines too.
func (e *Engine) WaitLog(ctx context.Context, id, substr string, timeout time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tail := &tailLines{max: 10}
	found := false
	match := &lineWriter{fn: func(line string) {
		tail.add(line)
		if !found && strings.Contains(line, substr) {
			found = true
			cancel()
		}
	}}
	errw := &lineWriter{fn: tail.add}
	rc, err := e.cli.ContainerLogs(wctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Follow: true})
	if err != nil {
		return fmt.Errorf("container wait log %s: %w", id, wrapNotFound(err))
	}
	_, copyErr := stdcopy.StdCopy(match, errw, rc)
	rc.Close()
	match.flush()
	errw.flush()
	if found {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("container wait log %s: %w", id, err)
	}
	if wctx.Err() != nil {
		return fmt.Errorf("container %s: no log line containing %q within %s; last lines: %s", id, substr, timeout, tail)
	}
	// The stream ended by itself: the container stopped.
	ictx, icancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer icancel()
	st, ierr := e.Inspect(ictx, id)
	if ierr != nil {
		return errors.Join(fmt.Errorf("container %s: log stream ended before %q: %s", id, substr, tail), copyErr, ierr)
	}
	if st.Running {
		return errors.Join(fmt.Errorf("container %s: log stream ended before %q (still running): %s", id, substr, tail), copyErr)
	}
	return fmt.Errorf("container %s exited with code %d before logging %q: %s", st.Name, st.ExitCode, substr, tail)
}

// lineWriter calls fn for every complete line written to it.
type lineWriter struct {
	buf []byte
	fn  func(string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.fn(strings.TrimRight(string(w.buf[:i]), "\r"))
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.fn(string(w.buf))
		w.buf = nil
	}
}

// tailLines keeps the last max lines.
type tailLines struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (t *tailLines) add(l string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, l)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

func (t *tailLines) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == 0 {
		return "(no output)"
	}
	return strings.Join(t.lines, " | ")
}
