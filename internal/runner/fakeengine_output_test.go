package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// The fake engine's output, files, kill events and teardown.

func (f *fakeEngine) WaitLog(ctx context.Context, id, substr string, timeout time.Duration) error {
	if err := f.fail["WaitLog "+f.roleOf(id)]; err != nil {
		return err
	}
	c, err := f.get(id)
	if err != nil {
		return err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		f.mu.Lock()
		found, running, changed := strings.Contains(c.stdout.String(), substr), c.running, c.changed
		f.mu.Unlock()
		switch {
		case found:
			return nil
		case !running:
			return fmt.Errorf("container %s exited before logging %q", id, substr)
		}
		select {
		case <-changed:
		case <-t.C:
			return fmt.Errorf("container %s: no log line containing %q within %s", id, substr, timeout)
		case <-ctx.Done():
			return fmt.Errorf("container wait log %s: %w", id, ctx.Err())
		}
	}
}

// Logs copies the output; with follow, until the container stops or ctx
// ends (not an error, as the engine's).
func (f *fakeEngine) Logs(ctx context.Context, id string, follow bool, stdout, stderr io.Writer) error {
	if err := f.fail["Logs "+f.roleOf(id)]; err != nil {
		return err
	}
	c, err := f.get(id)
	if err != nil {
		return err
	}
	var outN, errN int
	for {
		f.mu.Lock()
		out, eout := bytes.Clone(c.stdout.Bytes()[outN:]), bytes.Clone(c.stderr.Bytes()[errN:])
		running, changed := c.running, c.changed
		f.mu.Unlock()
		outN, errN = outN+len(out), errN+len(eout)
		if stdout != nil {
			stdout.Write(out)
		}
		if stderr != nil {
			stderr.Write(eout)
		}
		if !follow || !running {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}

func (f *fakeEngine) LogsAll(ctx context.Context, id string) ([]byte, []byte, error) {
	if err := f.fail["LogsAll "+f.roleOf(id)]; err != nil {
		return nil, nil, err
	}
	var o, e bytes.Buffer
	err := f.Logs(ctx, id, false, &o, &e)
	return o.Bytes(), e.Bytes(), err
}

func (f *fakeEngine) CopyFileFrom(_ context.Context, id, path string) ([]byte, error) {
	if err := f.fail["CopyFileFrom "+f.roleOf(id)]; err != nil {
		return nil, err
	}
	c, err := f.get(id)
	if err != nil {
		return nil, err
	}
	b, ok := c.script.files[path]
	if !ok {
		return nil, fmt.Errorf("copy %s from container %s: %w", path, id, docker.ErrNotFound)
	}
	return []byte(b), nil
}

func (f *fakeEngine) WatchKills(_ context.Context, id string) (*docker.KillWatch, error) {
	role := f.roleOf(id)
	if err := f.call("WatchKills "+role, "WatchKills "+role); err != nil {
		return nil, err
	}
	c, err := f.get(id)
	if err != nil {
		return nil, err
	}
	ch := make(chan docker.KillEvent, 64)
	f.mu.Lock()
	c.watches = append(c.watches, ch)
	f.mu.Unlock()
	return docker.NewKillWatch(ch), nil
}

// Sweep removes the containers whose labels match (all: match is nil),
// ending them first.
func (f *fakeEngine) Sweep(_ context.Context, match map[string]string) (docker.Removed, error) {
	if err := f.call("Sweep", "Sweep"); err != nil {
		return docker.Removed{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var rm docker.Removed
	for id, c := range f.containers {
		if !labelsMatch(c.spec.Labels, match) {
			continue
		}
		for _, t := range c.timers {
			t.Stop()
		}
		c.exit(137, time.Now())
		delete(f.containers, id)
		rm.Containers = append(rm.Containers, id)
	}
	return rm, nil
}

func labelsMatch(labels, match map[string]string) bool {
	for k, v := range match {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// errEngine is an injected engine failure.
var errEngine = errors.New("engine: connection reset by daemon")
