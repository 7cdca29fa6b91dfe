package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

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

	mu        sync.Mutex
	outErr    error
	loadStart int64
	summary   *record.Summary
	probes    int    // {"type":"probe"} lines
	probeLine []byte // the last of them, verbatim
	malformed int
	lastErr   string
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
		s.outErr = fmt.Errorf("writing %s: %w", name, bareError(err)) // the file is named once
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

// lineHead is the minimal decoding done on every request line.
type lineHead struct {
	Type      string       `json:"type"`
	Class     record.Class `json:"class"`
	LoadStart int64        `json:"load_start_ns"`
}

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

func (s *agentStream) observe(line []byte) {
	if len(line) == 0 {
		return
	}
	var h lineHead
	if err := json.Unmarshal(line, &h); err != nil {
		s.mu.Lock()
		s.malformed++
		s.lastErr = err.Error()
		s.mu.Unlock()
		return
	}
	switch h.Type {
	case "req":
		s.requests.Add(1)
		if h.Class != record.ClassOK && h.Class != record.ClassNotSent {
			s.failed.Add(1)
		}
	case "start":
		s.mu.Lock()
		s.loadStart = h.LoadStart
		s.mu.Unlock()
		s.once.Do(func() { close(s.started) })
	case "probe":
		s.mu.Lock()
		s.probes++
		s.probeLine = bytes.Clone(line)
		s.mu.Unlock()
	case "summary":
		var sum record.Summary
		if err := json.Unmarshal(line, &sum); err != nil {
			s.mu.Lock()
			s.malformed++
			s.lastErr = err.Error()
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		s.summary = &sum
		s.mu.Unlock()
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

// Malformed returns how many lines could not be decoded and the last error.
func (s *agentStream) Malformed() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.malformed, s.lastErr
}

// checkAccounting compares the agent's summary with the records it streamed:
// started must equal the number of request lines and the sum of its classes.
// A mismatch means records were lost or invented, so the run is invalid.
func (s *agentStream) checkAccounting() error {
	sum := s.Summary()
	if sum == nil {
		return fmt.Errorf("load agent printed no summary line")
	}
	total := 0
	for _, n := range sum.ByClass {
		total += n
	}
	if total != sum.Started {
		return fmt.Errorf("agent summary does not add up: started %d, sum of classes %d", sum.Started, total)
	}
	if got := int(s.requests.Load()); got != sum.Started {
		return fmt.Errorf("agent summary says %d requests started but %d request records arrived", sum.Started, got)
	}
	if n, last := s.Malformed(); n > 0 {
		return fmt.Errorf("%d malformed agent output lines (last: %s)", n, last)
	}
	return nil
}

// Probe returns the probe's line and how many probe lines arrived.
func (s *agentStream) Probe() ([]byte, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.probeLine, s.probes
}

// checkProbe is checkAccounting for a probe run: there is no summary, so
// exactly one probe line must have arrived, and nothing else but its start
// line.
func (s *agentStream) checkProbe() error {
	_, n := s.Probe()
	switch {
	case n == 0:
		return fmt.Errorf("probe printed no probe line")
	case n > 1:
		return fmt.Errorf("probe printed %d probe lines, want exactly one", n)
	}
	if n := s.requests.Load(); n > 0 {
		return fmt.Errorf("probe output holds %d request lines", n)
	}
	if n, last := s.Malformed(); n > 0 {
		return fmt.Errorf("%d malformed probe output lines (last: %s)", n, last)
	}
	return nil
}
