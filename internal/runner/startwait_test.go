package runner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// fakeWatcher plays the engine for startWait: containers listed in exits
// exit at once with that state; the others run until ctx ends. logs is
// what Logs writes for a container.
type fakeWatcher struct {
	exits map[string]docker.State
	logs  map[string]string
}

func (f *fakeWatcher) WaitExit(ctx context.Context, id string, window time.Duration) (bool, docker.State, error) {
	if st, ok := f.exits[id]; ok {
		return true, st, nil
	}
	t := time.NewTimer(window)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false, docker.State{}, ctx.Err()
	case <-t.C:
		return false, docker.State{Running: true}, nil
	}
}

// watchedAgent is an agent the fake watcher watches, as an agentProc.
type watchedAgent struct {
	w  *fakeWatcher
	id string
}

func (a watchedAgent) logs(ctx context.Context, stdout, stderr io.Writer) error {
	return a.w.Logs(ctx, a.id, true, stdout, stderr)
}
func (a watchedAgent) waitExit(ctx context.Context, window time.Duration) (bool, docker.State, error) {
	return a.w.WaitExit(ctx, a.id, window)
}
func (a watchedAgent) signal(context.Context, string) error { return nil }

func (f *fakeWatcher) Logs(_ context.Context, id string, _ bool, stdout, _ io.Writer) error {
	_, err := io.WriteString(stdout, f.logs[id])
	return err
}

// logProgress records Logf lines.
type logProgress struct {
	Progress
	mu    sync.Mutex
	lines []string
}

func (p *logProgress) Logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, fmt.Sprintf(format, args...))
}

func (p *logProgress) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// waitResult runs w.wait with a guard against hanging (not a timing
// assertion: the guard is far above any bound the cases use).
func waitResult(t *testing.T, ctx context.Context, w *startWait) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- w.wait(ctx) }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("start wait did not return")
		return nil
	}
}

func TestStartWait(t *testing.T) {
	var crashLog strings.Builder
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&crashLog, "boot step %d\n", i)
	}
	crashLog.WriteString("fatal: config missing\n")
	replicas := []*docker.Container{{ID: "r0", Name: "x-replica-0"}, {ID: "r1", Name: "x-replica-1"}}
	agentID := "agent"

	const long = 10 * time.Minute // no case may wait for the bound, except "bound"
	tests := []struct {
		name    string
		exits   map[string]docker.State
		stderr  string // the agent's stderr so far
		output  bool   // the records file failed
		start   bool   // the start line arrived
		cancel  bool   // Ctrl-C
		timeout time.Duration
		want    []string // substrings of the error; nil: no error
		printed []string // substrings of the progress output
	}{
		{name: "start line", start: true, timeout: long},
		{name: "replica exits with 3", exits: map[string]docker.State{"r1": {ExitCode: 3}}, timeout: long,
			want:    []string{"replica-1 exited with code 3 before it was ready", "last lines: boot step 7 | ", "| fatal: config missing"},
			printed: []string{"replica-1 exited with code 3 before it was ready; its last lines:", "  | fatal: config missing"}},
		{name: "replica OOM-killed", exits: map[string]docker.State{"r0": {ExitCode: 137, OOMKilled: true}}, timeout: long,
			want: []string{"replica-0 exited with code 137 before it was ready (OOM-killed)"}},
		{name: "agent gave up on the ready path", exits: map[string]docker.State{"agent": {ExitCode: 3}}, timeout: long,
			stderr: "loadagent: target replica-0:8080 not ready: after 30s: GET /readyz: 500 Internal Server Error\n",
			want:   []string{"load agent exited with code 3 before the load started", "GET /readyz: 500 Internal Server Error"}},
		{name: "records file failed", output: true, timeout: long, want: []string{"writing records.jsonl: no space left on device"}},
		{name: "ctrl-c", cancel: true, timeout: long, want: []string{"context canceled"}},
		{name: "bound", timeout: 50 * time.Millisecond, want: []string{"load agent printed no start line within 50ms"}},
		// The start line came before the replica's exit was noticed: the
		// exit is an observation of the run, not a set-up failure.
		{name: "exit after start", start: true, exits: map[string]docker.State{"r0": {ExitCode: 0}}, timeout: long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newAgentStream()
			if tt.start {
				s.Write([]byte(`{"type":"start","load_start_ns":1000}` + "\n"))
			}
			if tt.output {
				s.fail(recordsFile, noSpace)
			}
			s.stderrTail.Write([]byte(tt.stderr))
			ended := make(chan struct{})
			close(ended)
			p := &logProgress{Progress: Discard}
			fw := &fakeWatcher{exits: tt.exits, logs: map[string]string{"r0": crashLog.String(), "r1": crashLog.String()}}
			w := &startWait{eng: fw,
				replicas: replicas, agent: watchedAgent{fw, agentID}, loadName: "load agent", timeout: tt.timeout,
				stream: s, streamEnded: ended, progress: p}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			err := waitResult(t, ctx, w)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("wait: %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("wait: nil, want an error with %q", tt.want)
			}
			for _, sub := range tt.want {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q lacks %q", err, sub)
				}
			}
			if strings.Contains(err.Error(), "boot step 5 ") {
				t.Errorf("error quotes more than the last %d lines: %q", tailLines, err)
			}
			for _, sub := range tt.printed {
				if !strings.Contains(p.text(), sub) {
					t.Errorf("progress output lacks %q:\n%s", sub, p.text())
				}
			}
		})
	}
}
