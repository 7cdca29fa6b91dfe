package runner

import (
	"bytes"
	"strings"
	"sync"
)

// tailLines is how many of a container's last output lines an error
// message quotes.
const tailLines = 10

// tailBuffer keeps the last max non-empty lines written to it; a line may
// arrive in pieces. It is safe for concurrent use.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	lines   []string
	partial []byte
}

// Write never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.add(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 64<<10 { // a runaway line: keep its start
		t.add(string(t.partial[:64<<10]))
		t.partial = nil
	}
	return len(p), nil
}

func (t *tailBuffer) add(l string) {
	if l = strings.TrimRight(l, "\r \t"); l == "" {
		return
	}
	t.lines = append(t.lines, l)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

// Lines returns the kept lines, the unfinished one last.
func (t *tailBuffer) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.lines...)
	if l := strings.TrimSpace(string(t.partial)); l != "" {
		out = append(out, l)
		if len(out) > t.max {
			out = out[len(out)-t.max:]
		}
	}
	return out
}

// lastLines returns the last n non-empty lines of b.
func lastLines(b []byte, n int) []string {
	t := tailBuffer{max: n}
	_, _ = t.Write(b)
	return t.Lines()
}
