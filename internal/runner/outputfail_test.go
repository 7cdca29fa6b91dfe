package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"time"
)

// failAfter is a writer that takes n bytes, then fails every write with
// err (like a file on a disk that just filled up).
type failAfter struct {
	n     int
	err   error
	wrote bytes.Buffer
}

func (w *failAfter) Write(p []byte) (int, error) {
	if w.wrote.Len()+len(p) > w.n {
		k := w.n - w.wrote.Len()
		w.wrote.Write(p[:k])
		return k, w.err
	}
	return w.wrote.Write(p)
}

// agentOutput is a load agent's stdout: a start line, n request lines and
// a summary that agrees with them.
func agentOutput(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"start","load_start_ns":1000}` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `{"type":"req","id":"r%d","class":"ok"}`+"\n", i)
	}
	fmt.Fprintf(&b, `{"type":"summary","started":%d,"by_class":{"ok":%d}}`+"\n", n, n)
	return b.String()
}

// noSpace is what writing a file on a full disk returns.
var noSpace = &fs.PathError{Op: "write", Path: "/out/run-001/records.jsonl", Err: syscall.ENOSPC}

// TestAgentStreamDrainsAfterWriteError: when the records file stops taking
// writes (disk full), the stream still reads the agent's output to its end
// (before the fix consume stopped reading, the engine's log stream blocked
// on the pipe and the run hung for good), keeps the error in the words a
// person needs, and signals it.
func TestAgentStreamDrainsAfterWriteError(t *testing.T) {
	in := agentOutput(5000) // ~200 KB, far more than a pipe holds
	s := newAgentStream()
	pr, pw := io.Pipe()
	go func() {
		_, err := io.WriteString(pw, in) // blocks unless the other side reads everything
		pw.CloseWithError(err)
	}()
	w := &failAfter{n: 4096, err: noSpace}
	done := make(chan error, 1)
	go func() { done <- s.consume(pr, w) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("consume: %v (a failed write must not end the read)", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the agent output was not drained after the write error: the stream would block forever")
	}
	if got, want := fmt.Sprint(s.OutputErr()), "writing records.jsonl: no space left on device"; got != want {
		t.Errorf("OutputErr = %q, want %q", got, want)
	}
	select {
	case <-s.outputFailed:
	default:
		t.Error("outputFailed not closed: the run would not stop")
	}
	if w.wrote.Len() != 4096 {
		t.Errorf("wrote %d bytes, want the 4096 the writer took and nothing after the error", w.wrote.Len())
	}
	if s.requests.Load() != 5000 || s.Summary() == nil {
		t.Errorf("observed %d requests, summary %v: the stream must still be read to its end", s.requests.Load(), s.Summary())
	}
}

// TestFollowOutputError runs the follow plumbing against a fake engine log
// stream: records.jsonl fails after 1 KB, agent.log works. The stream ends
// by itself, the files are closed, the error is kept and signalled, and the
// stderr tail is there for messages.
func TestFollowOutputError(t *testing.T) {
	s := newAgentStream()
	logs := func(ctx context.Context, stdout, stderr io.Writer) error {
		io.WriteString(stderr, "loadagent: closed loop against replica-0:8080\n")
		for _, line := range strings.SplitAfter(agentOutput(2000), "\n") {
			if _, err := io.WriteString(stdout, line); err != nil {
				return err // stdcopy stops on a writer error
			}
		}
		io.WriteString(stderr, "loadagent: stopped by duration\n")
		return nil
	}
	rec := &failAfter{n: 1024, err: noSpace}
	var logf bytes.Buffer
	closed := false
	f := s.follow(context.Background(), time.Minute, logs, rec, recordsFile, &logf, agentLogFile, func() { closed = true })
	if !f.wait(30 * time.Second) {
		t.Fatal("the stream did not end")
	}
	if !closed || f.err != nil {
		t.Errorf("closed %v, stream error %v; want closed files and no stream error", closed, f.err)
	}
	if got := fmt.Sprint(s.OutputErr()); got != "writing records.jsonl: no space left on device" {
		t.Errorf("OutputErr = %q", got)
	}
	if s.requests.Load() != 2000 {
		t.Errorf("requests observed %d, want 2000 (the stream kept being read)", s.requests.Load())
	}
	if tail := s.StderrTail(); len(tail) != 2 || tail[1] != "loadagent: stopped by duration" {
		t.Errorf("stderr tail %q", tail)
	}
	if logf.Len() == 0 {
		t.Error("agent.log got nothing")
	}
}

// TestFollowCut: a log stream that never ends by itself (a wedged engine)
// is cut by wait after its grace, and the follow returns.
func TestFollowCut(t *testing.T) {
	s := newAgentStream()
	logs := func(ctx context.Context, stdout, stderr io.Writer) error {
		<-ctx.Done()
		return ctx.Err()
	}
	f := s.follow(context.Background(), time.Hour, logs, io.Discard, recordsFile, io.Discard, agentLogFile, func() {})
	if !f.wait(10 * time.Millisecond) {
		t.Fatal("a cut stream did not end")
	}
	if f.err != nil {
		t.Errorf("a stream cut by the harness is not a stream error: %v", f.err)
	}
}

// TestAgentStreamStderrFailure: agent.log failing is an output error too.
func TestAgentStreamStderrFailure(t *testing.T) {
	s := newAgentStream()
	w := s.stderr(&failAfter{n: 0, err: errors.New("read-only file system")}, agentLogFile)
	if n, err := w.Write([]byte("loadagent: x\n")); n != 13 || err != nil {
		t.Errorf("stderr writer returned %d, %v; it must never fail the stream", n, err)
	}
	if got := fmt.Sprint(s.OutputErr()); got != "writing agent.log: read-only file system" {
		t.Errorf("OutputErr = %q", got)
	}
}
