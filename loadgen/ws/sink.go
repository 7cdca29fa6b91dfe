package ws

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/shutdownlab/shutdownlab/record"
)

// LineSink writes every record as one JSON line to W, one Write per line,
// serialized. The first write error is kept (Err) and later records are
// dropped: a caller must treat a failed output as a failed run.
type LineSink struct {
	W   io.Writer
	mu  sync.Mutex
	err error
}

// Attempt implements Sink.
func (s *LineSink) Attempt(a record.WSAttempt) { s.write(a) }

// Close implements Sink.
func (s *LineSink) Close(c record.WSClose) { s.write(c) }

// Client implements Sink.
func (s *LineSink) Client(c record.WSClient) { s.write(c) }

// Start writes the load's record.Start line (load_start_ns ns): the
// command prints it as the load begins.
func (s *LineSink) Start(ns int64) {
	s.write(record.Start{Type: record.TypeStart, LoadStart: ns})
}

// Err returns the first write error.
func (s *LineSink) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *LineSink) write(v any) {
	b, err := json.Marshal(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if err == nil {
		_, err = s.W.Write(append(b, '\n'))
	}
	s.err = err
}
