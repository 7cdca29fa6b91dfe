package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// agentStream consumes the load agent's stdout: every line is copied
// verbatim to the records file, and the few fields the runner needs live
// (load start, counts for progress, the closing summary) are picked out.
// Lines that are not JSON objects are kept in the file and counted as
// malformed, never dropped silently.
//
// The stream is an io.Writer for the engine's log stream and never fails
// or blocks it: when writing the records file fails (disk full), the error
// is kept (OutputErr), outputFailed is closed so the run can stop, and the
// rest of the output is still read and observed but no longer written.
type agentStream struct {
	started  chan struct{} // closed when the "start" line arrives
	once     sync.Once
	requests atomic.Int64
	failed   atomic.Int64 // requests that did not end ok

	// out receives the records; outName names it in errors.
	out     io.Writer
	outName string
	partial []byte // an unfinished line, until its newline arrives

	outputFailed chan struct{} // closed on the first output error
	failOnce     sync.Once
	stderrTail   tailBuffer // the agent's last stderr lines

	dec record.Line // the line being observed (only observe uses it)

	mu        sync.Mutex
	outErr    error
	loadStart int64
	summary   *record.Summary // the last summary line
	tally     record.Tally    // what the lines hold, for the accounting rule
	// last is the last decoded line of each type the tally counts beyond
	// requests (the probe's line), for the driver (Last).
	last map[string]any

	// other, when set, takes each line of a type not kept here (the load
	// driver's own lines, loadDriver.observe); it is called under mu.
	other func(typ string, line []byte)
}

func newAgentStream() *agentStream {
	return &agentStream{started: make(chan struct{}), outputFailed: make(chan struct{}),
		out: io.Discard, outName: recordsFile, stderrTail: tailBuffer{max: tailLines}}
}

// setOutput makes w (named name in errors, e.g. "records.jsonl") the
// records file. Call it before the first Write.
func (s *agentStream) setOutput(w io.Writer, name string) { s.out, s.outName = w, name }

// Write takes a chunk of the agent's stdout. It always reports success, so
// the stream feeding it is never cut or blocked by a failed records file.
func (s *agentStream) Write(p []byte) (int, error) {
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.line(s.partial[:i+1])
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) == 0 {
		s.partial = nil // let a large finished chunk be collected
	}
	return len(p), nil
}

// flush takes a last line that had no newline.
func (s *agentStream) flush() {
	if len(s.partial) > 0 {
		s.line(s.partial)
		s.partial = nil
	}
}

// line writes one line to the records file (unless writing already
// failed) and observes it.
func (s *agentStream) line(line []byte) {
	if s.OutputErr() == nil {
		if _, err := s.out.Write(line); err != nil {
			s.fail(s.outName, err)
		}
	}
	s.observe(bytes.TrimSpace(line))
}

// fail records the first output error ("writing records.jsonl: no space
// left on device") and closes outputFailed.
func (s *agentStream) fail(name string, err error) {
	s.failOnce.Do(func() {
		s.mu.Lock()
		s.outErr = fmt.Errorf("writing %s: %w", name, resultdir.BareError(err)) // the file is named once
		s.mu.Unlock()
		close(s.outputFailed)
	})
}

// OutputErr is the first error writing the run's agent output to disk
// (nil: none). A run with one is invalid: its records are incomplete.
func (s *agentStream) OutputErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outErr
}

// stderr returns the writer for the agent's stderr: it copies to w (named
// name in errors) until a write fails, as the records file does, and keeps
// the last lines for error messages (StderrTail).
func (s *agentStream) stderr(w io.Writer, name string) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		s.stderrTail.Write(p)
		if s.OutputErr() == nil {
			if _, err := w.Write(p); err != nil {
				s.fail(name, err)
			}
		}
		return len(p), nil
	})
}

// StderrTail returns the agent's last stderr lines.
func (s *agentStream) StderrTail() []string { return s.stderrTail.Lines() }

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// consume reads r to its end through the stream into w (named
// records.jsonl in errors). It returns a read error only: a failed write is
// OutputErr, and r is still read to its end; a malformed line is not an
// error.
func (s *agentStream) consume(r io.Reader, w io.Writer) error {
	s.setOutput(w, recordsFile)
	_, err := io.Copy(s, r)
	s.flush()
	if err != nil {
		return fmt.Errorf("read agent output: %w", err)
	}
	return nil
}

// observe decodes one line (record.Line) and counts it: a line that does
// not decode is malformed, a request line is counted by class (and live as
// progress), the start and summary lines are kept, and the other lines
// record's tally counts (the probe's) are counted and the last of each
// type kept; any other line goes to the driver (other).
func (s *agentStream) observe(line []byte) {
	l := &s.dec
	err := l.Decode(line)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.tally.AddMalformed(err)
		return
	}
	switch l.Type {
	case record.TypeRequest:
		s.tally.AddRequest(l.Request.Class)
		s.requests.Add(1)
		if l.Request.Class.Failed() {
			s.failed.Add(1)
		}
	case record.TypeStart:
		s.loadStart = l.Start.LoadStart
		s.once.Do(func() { close(s.started) })
	case record.TypeProbe: // record.Tally counts them in every run (CheckAccounting refuses them)
		s.tally.Probes++
		s.keep(l.Type, l.Value)
	case record.TypeSummary:
		sum := l.Summary
		s.summary = &sum
	case "":
	default:
		if s.other != nil {
			s.other(l.Type, line)
		}
	}
}

// LoadStart returns the agent's load start (Unix ns), 0 before it arrived.
func (s *agentStream) LoadStart() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loadStart
}

// Summary returns the agent's summary line, nil before it arrived.
func (s *agentStream) Summary() *record.Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.summary
}

// checkAccounting applies the accounting rule of an agent run
// (record.CheckAccounting) to what arrived; the error lists every problem.
// A run that fails it had records lost, invented or garbled: invalid.
func (s *agentStream) checkAccounting() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return joinProblems(record.CheckAccounting(s.summary, &s.tally))
}

// keep keeps v as the last line of type typ (under mu).
func (s *agentStream) keep(typ string, v any) {
	if s.last == nil {
		s.last = map[string]any{}
	}
	s.last[typ] = v
}

// Last returns the last line of type typ the stream kept, decoded (nil
// before one arrived): LoadOutput.
func (s *agentStream) Last(typ string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last[typ]
}

// Account applies an accounting rule to what arrived (the probe's:
// record.CheckProbeAccounting): LoadOutput.
func (s *agentStream) Account(rule func(*record.Tally) []error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return joinProblems(rule(&s.tally))
}

// joinProblems makes one error of the accounting rule's problems, "; "
// between them (nil: none).
func joinProblems(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}
