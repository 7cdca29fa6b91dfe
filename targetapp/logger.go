package targetapp

import (
	"encoding/json"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// Logger writes lifecycle events, one JSON record.Event per line. Writes are
// serialized and each line goes out in a single Write call with no
// buffering, so a line written before os.Exit is not lost.
type Logger struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
}

// NewLogger returns a Logger writing to w and stamping events with now
// (time.Now when nil).
func NewLogger(w io.Writer, now func() time.Time) *Logger {
	if now == nil {
		now = time.Now
	}
	return &Logger{w: w, now: now}
}

// Log stamps e with the current wall-clock time (unless TimeNs is already
// set) and writes it as one line. Write errors are ignored: there is nowhere
// else to report them.
func (l *Logger) Log(e record.Event) {
	if e.TimeNs == 0 {
		e.TimeNs = l.now().UnixNano()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(b)
}

// signalName names a signal the way the harness writes it: "SIGTERM" rather
// than Go's "terminated".
func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	if s == nil {
		return ""
	}
	return s.String()
}

func intp(n int) *int { return &n }

func msp(d time.Duration) *float64 {
	ms := float64(d.Microseconds()) / 1000
	return &ms
}
