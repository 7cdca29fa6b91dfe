package runner

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// fakeEngine is an in-memory engine for unit tests: every container
// follows the script of its role ("replica-0", "agent", "proxy"), and
// nothing touches Docker. Real time passes, so scripts use milliseconds.
type fakeEngine struct {
	// imageEnv is every image's own environment (ImageInfo).
	imageEnv []string
	// scripts gives each role its behaviour (a missing role: runs, prints
	// nothing, ignores every signal but SIGKILL).
	scripts map[string]fakeScript
	// fail injects engine errors by call: "Method role" ("Kill replica-0",
	// "Inspect agent") or "Method" for calls without a container
	// ("CreateNetwork", "Sweep").
	fail map[string]error
	// instant lists roles whose WaitExit windows pass at once, as if the
	// whole window had gone by (to test long bounds without waiting).
	instant map[string]bool
	// second is one second of a stop grace period (default 10 ms).
	second time.Duration
	// hook, when set, sees every call as it is recorded (outside the lock).
	hook func(call string)

	mu         sync.Mutex
	containers map[string]*fakeContainer // by id (= name)
	calls      []string                  // "Run replica-0", "Kill replica-0 SIGTERM", "Stop replica-0", ...
}

// fakeScript is what a container does by itself and how it answers
// signals. "$NOW" in a printed line is replaced by the time (Unix ns).
type fakeScript struct {
	stdout, stderr []string // printed at start
	// exitAfter > 0: it prints final, then exits with exitCode this long
	// after its start.
	exitAfter time.Duration
	exitCode  int
	final     []string
	// on is how it answers each signal; a signal not listed is ignored,
	// and SIGKILL always ends it with 137.
	on map[string]fakeReaction
	// files are the files it wrote, by path, for CopyFileFrom.
	files map[string]string
}

// fakeReaction is a container's answer to a signal.
type fakeReaction struct {
	stdout []string      // printed when the signal arrives
	after  time.Duration // it exits this long after the signal
	code   int
	// late stamps the exit's FinishedAt this much after it happened (an
	// exit the engine dates past the observation window).
	late time.Duration
}

// fakeContainer is one container of a fakeEngine; guarded by its mu.
type fakeContainer struct {
	id, role string
	spec     docker.ContainerSpec
	script   fakeScript
	running  bool
	code     int
	finished time.Time
	stdout   bytes.Buffer
	stderr   bytes.Buffer
	changed  chan struct{} // closed and replaced on every output or state change
	exited   chan struct{}
	timers   []*time.Timer
	watches  []chan docker.KillEvent
}

var _ engine = (*fakeEngine)(nil)

// fakeRole is a container's role: its name without the run's prefix.
var fakeRole = regexp.MustCompile(`^shutdownlab-fake-\d+-`)

// newFakeEngine returns an engine running containers by these scripts.
func newFakeEngine(scripts map[string]fakeScript) *fakeEngine {
	return &fakeEngine{scripts: scripts, fail: map[string]error{}, instant: map[string]bool{},
		second: 10 * time.Millisecond, containers: map[string]*fakeContainer{}}
}

// call records a call and returns the error injected for it, if any.
func (f *fakeEngine) call(what, key string) error {
	f.mu.Lock()
	f.calls = append(f.calls, what)
	hook := f.hook
	f.mu.Unlock()
	if hook != nil {
		hook(what)
	}
	return f.fail[key]
}

// Calls returns the calls so far.
func (f *fakeEngine) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// live returns the containers not yet swept.
func (f *fakeEngine) live() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for id := range f.containers {
		ids = append(ids, id)
	}
	return ids
}

// get returns container id and its role.
func (f *fakeEngine) get(id string) (*fakeContainer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.containers[id]
	if !ok {
		return nil, fmt.Errorf("container %s: %w", id, docker.ErrNotFound)
	}
	return c, nil
}

// roleOf returns the role of container id ("" if unknown).
func (f *fakeEngine) roleOf(id string) string {
	if c, err := f.get(id); err == nil {
		return c.role
	}
	return ""
}

func (f *fakeEngine) Session() string { return "fake" }

// ImageInfo: a user image in the fake has the environment in imageEnv.
func (f *fakeEngine) ImageInfo(_ context.Context, ref string) (docker.ImageInfo, error) {
	return docker.ImageInfo{ID: "sha256:fake-" + ref, Env: f.imageEnv}, nil
}

func (f *fakeEngine) CreateNetwork(_ context.Context, name string, _ map[string]string) (string, error) {
	if err := f.call("CreateNetwork", "CreateNetwork"); err != nil {
		return "", err
	}
	return name, nil
}

func (f *fakeEngine) Run(_ context.Context, spec docker.ContainerSpec) (*docker.Container, error) {
	role := fakeRole.ReplaceAllString(spec.Name, "")
	if err := f.call("Run "+role, "Run "+role); err != nil {
		return nil, err
	}
	c := &fakeContainer{id: spec.Name, role: role, spec: spec, script: f.scripts[role], running: true,
		changed: make(chan struct{}), exited: make(chan struct{})}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.containers[c.id] = c
	c.print(&c.stdout, c.script.stdout)
	c.print(&c.stderr, c.script.stderr)
	if d := c.script.exitAfter; d > 0 {
		c.timers = append(c.timers, time.AfterFunc(d, func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			if c.running {
				c.print(&c.stdout, c.script.final)
				c.exit(c.script.exitCode, time.Now())
			}
		}))
	}
	return &docker.Container{ID: c.id, Name: c.id}, nil
}

// print writes lines to w, "$NOW" replaced; f.mu is held.
func (c *fakeContainer) print(w *bytes.Buffer, lines []string) {
	now := strconv.FormatInt(time.Now().UnixNano(), 10)
	for _, l := range lines {
		w.WriteString(strings.ReplaceAll(l, "$NOW", now) + "\n")
	}
	c.notify()
}

// notify wakes whoever waits for a change; f.mu is held.
func (c *fakeContainer) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// exit ends the container with code, dated at; f.mu is held.
func (c *fakeContainer) exit(code int, at time.Time) {
	if !c.running {
		return
	}
	c.running, c.code, c.finished = false, code, at
	close(c.exited)
	c.notify()
}

// state is what Inspect reports; f.mu is held.
func (c *fakeContainer) state() docker.State {
	return docker.State{ID: c.id, Name: c.id, Running: c.running, ExitCode: c.code, FinishedAt: c.finished,
		StopTimeout: c.spec.StopTimeout, Init: c.spec.Init, Labels: c.spec.Labels}
}

func (f *fakeEngine) Inspect(_ context.Context, id string) (docker.State, error) {
	if err := f.fail["Inspect "+f.roleOf(id)]; err != nil {
		return docker.State{}, err
	}
	c, err := f.get(id)
	if err != nil {
		return docker.State{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return c.state(), nil
}

// signal delivers sig to c as the engine would: a kill event, then the
// script's answer; f.mu is held.
func (f *fakeEngine) signal(c *fakeContainer, sig string) {
	for _, w := range c.watches {
		w <- docker.KillEvent{TimeNs: time.Now().UnixNano(), Signal: signalNumbers[sig]}
	}
	if sig == "SIGKILL" {
		c.exit(137, time.Now())
		return
	}
	r, ok := c.script.on[sig]
	if !ok {
		return
	}
	c.print(&c.stdout, r.stdout)
	if r.after <= 0 {
		c.exit(r.code, time.Now().Add(r.late))
		return
	}
	c.timers = append(c.timers, time.AfterFunc(r.after, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		c.exit(r.code, time.Now().Add(r.late))
	}))
}

func (f *fakeEngine) Kill(_ context.Context, id, sig string) error {
	role := f.roleOf(id)
	if err := f.call("Kill "+role+" "+sig, "Kill "+role); err != nil {
		return err
	}
	c, err := f.get(id)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !c.running {
		return fmt.Errorf("container kill %s: container is not running", id)
	}
	f.signal(c, sig)
	return nil
}

// Stop is docker stop: the stop signal, the grace period (timeout, else
// the container's StopTimeout, else 10 "seconds" of f.second), SIGKILL.
func (f *fakeEngine) Stop(ctx context.Context, id string, timeout *int) error {
	role := f.roleOf(id)
	if err := f.call("Stop "+role, "Stop "+role); err != nil {
		return err
	}
	c, err := f.get(id)
	if err != nil {
		return err
	}
	f.mu.Lock()
	grace, sig := 10, cmpOr(c.spec.StopSignal, "SIGTERM")
	if timeout != nil {
		grace = *timeout
	} else if c.spec.StopTimeout != nil {
		grace = *c.spec.StopTimeout
	}
	if c.running {
		f.signal(c, sig)
	}
	f.mu.Unlock()
	t := time.NewTimer(time.Duration(grace) * f.second)
	defer t.Stop()
	select {
	case <-c.exited:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("container stop %s: %w", id, ctx.Err())
	case <-t.C:
	}
	f.mu.Lock()
	if c.running {
		f.signal(c, "SIGKILL")
	}
	f.mu.Unlock()
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (f *fakeEngine) WaitExit(ctx context.Context, id string, window time.Duration) (bool, docker.State, error) {
	role := f.roleOf(id)
	if err := f.call(fmt.Sprintf("WaitExit %s %s", role, window.Round(time.Second)), "WaitExit "+role); err != nil {
		return false, docker.State{}, err
	}
	c, err := f.get(id)
	if err != nil {
		return false, docker.State{}, err
	}
	if f.instant[role] {
		window = 0
	}
	t := time.NewTimer(window)
	defer t.Stop()
	select {
	case <-c.exited:
	case <-t.C:
	case <-ctx.Done():
		return false, docker.State{}, fmt.Errorf("container wait %s: %w", id, ctx.Err())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return !c.running, c.state(), nil
}
