package runner

import (
	"bufio"
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
type agentStream struct {
	started  chan struct{} // closed when the "start" line arrives
	once     sync.Once
	requests atomic.Int64
	failed   atomic.Int64

	mu        sync.Mutex
	loadStart int64
	summary   *record.Summary
	probes    int    // {"type":"probe"} lines
	probeLine []byte // the last of them, verbatim
	malformed int
	lastErr   string
}

func newAgentStream() *agentStream {
	return &agentStream{started: make(chan struct{})}
}

// lineHead is the minimal decoding done on every request line.
type lineHead struct {
	Type      string       `json:"type"`
	Class     record.Class `json:"class"`
	LoadStart int64        `json:"load_start_ns"`
}

// consume copies r to w line by line until r ends. It returns a read or
// write error; a malformed line is not an error.
func (s *agentStream) consume(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := w.Write(line); werr != nil {
				return fmt.Errorf("write records: %w", werr)
			}
			s.observe(bytes.TrimSpace(line))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read agent output: %w", err)
		}
	}
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
