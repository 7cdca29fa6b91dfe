package runner

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress is told what the runner is doing so a person can follow a long
// job. Implementations must be safe for use from one goroutine at a time
// per run (the runner calls them from its own goroutine).
type Progress interface {
	// Logf prints a one-line message (image builds, cleanup, warnings).
	Logf(format string, args ...any)
	// RunStart announces run i of n of a variant.
	RunStart(scenario, variant string, i, n int, load time.Duration)
	// Load reports load progress: time since load start, and what the
	// load counted so far.
	Load(elapsed time.Duration, n LoadCount)
	// RunEnd closes the run's line with a one-line outcome.
	RunEnd(outcome string)
}

// LoadCount is a load's progress: Done units (requests, connection
// attempts) so far, Failed of them not ok; Unit names them in the plural.
type LoadCount struct {
	Done, Failed int64
	Unit         string
}

// NewProgress returns a Progress writing to w: a live bar when w is a
// terminal, and plain lines (one every few seconds) otherwise, as in CI logs.
func NewProgress(w io.Writer) Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w, every: 5 * time.Second}
}

// lineProgress prints plain lines, suitable for logs.
type lineProgress struct {
	mu     sync.Mutex
	w      io.Writer
	every  time.Duration
	prefix string
	last   time.Time
}

func (p *lineProgress) Logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *lineProgress) RunStart(scenario, variant string, i, n int, load time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prefix = fmt.Sprintf("%s [%s] run %d/%d", scenario, variant, i, n)
	p.last = time.Now()
	fmt.Fprintf(p.w, "%s: starting (load %s)\n", p.prefix, load)
}

func (p *lineProgress) Load(elapsed time.Duration, n LoadCount) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < p.every {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "%s: load %.0fs, %d %s, %d failed\n", p.prefix, elapsed.Seconds(), n.Done, n.Unit, n.Failed)
}

func (p *lineProgress) RunEnd(outcome string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%s: %s\n", p.prefix, outcome)
}

// barProgress draws a progressbar over the load duration.
type barProgress struct {
	mu     sync.Mutex
	w      io.Writer
	bar    *progressbar.ProgressBar
	prefix string
}

func (p *barProgress) Logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Clear()
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *barProgress) RunStart(scenario, variant string, i, n int, load time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prefix = fmt.Sprintf("%s [%s] run %d/%d", scenario, variant, i, n)
	p.bar = progressbar.NewOptions64(load.Milliseconds(),
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(p.prefix+" setting up"),
		progressbar.OptionSetWidth(20),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionClearOnFinish(),
	)
}

func (p *barProgress) Load(elapsed time.Duration, n LoadCount) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil {
		return
	}
	p.bar.Describe(fmt.Sprintf("%s load %4.1fs  %d %s  %d failed", p.prefix, elapsed.Seconds(), n.Done, n.Unit, n.Failed))
	_ = p.bar.Set64(min(elapsed.Milliseconds(), p.bar.GetMax64()))
}

func (p *barProgress) RunEnd(outcome string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
		p.bar = nil
	}
	fmt.Fprintf(p.w, "%s: %s\n", p.prefix, outcome)
}

// Discard is a Progress that prints nothing (tests).
var Discard Progress = discard{}

type discard struct{}

func (discard) Logf(string, ...any)                              {}
func (discard) RunStart(string, string, int, int, time.Duration) {}
func (discard) Load(time.Duration, LoadCount)                    {}
func (discard) RunEnd(string)                                    {}
