package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// ContainerSpec describes a container for [Engine.Run].
type ContainerSpec struct {
	// Name is the container name (also its DNS name on Network); "" lets
	// Docker choose one.
	Name string
	// Image is the image reference to run; it must exist locally (nothing
	// is pulled).
	Image string
	// Entrypoint, when set, replaces the image's entrypoint; Cmd replaces
	// its command (the arguments for an exec-form entrypoint).
	Entrypoint []string
	Cmd        []string
	// Env is a list of KEY=value.
	Env []string
	// Labels are extra labels; LabelManaged and LabelSession are always
	// added.
	Labels map[string]string
	// Network is the network to attach to (a name from CreateNetwork);
	// "" means Docker's default bridge. Aliases are extra DNS names on it.
	Network string
	Aliases []string
	// Init runs Docker's init (tini) as PID 1 in front of the process.
	Init bool
	// StopTimeout, when set, is the container's own stop grace in seconds
	// (used by docker stop without -t); nil keeps the daemon default (10 s).
	StopTimeout *int
	// StopSignal, when set, replaces the image's stop signal (e.g.
	// "SIGINT").
	StopSignal string
	// User, when set, runs the process as this user ("uid[:gid]").
	User string
	// NanoCPUs and MemoryBytes, when > 0, limit the container (1e9 NanoCPUs
	// is one CPU).
	NanoCPUs    int64
	MemoryBytes int64
	// PidsLimit, when > 0, bounds the container's processes and threads.
	PidsLimit int64
	// LogMaxSize, when set, makes the container log with the json-file
	// driver rotating at this size ("1g") instead of the engine's default:
	// on Docker 20.10 a followed log stream repeats lines across a
	// rotation, so a process whose output is read that way must not rotate
	// during a run.
	LogMaxSize string
}

// Container is a created and started container.
type Container struct {
	// ID is the full container id; Name is its name without the leading
	// slash.
	ID   string
	Name string
}

// Run creates and starts a container. If the start fails the container is
// removed before Run returns the error, so a failed Run leaves nothing behind.
// Callers own the returned container and should Remove it when done.
func (e *Engine) Run(ctx context.Context, spec ContainerSpec) (*Container, error) {
	if spec.Image == "" {
		return nil, errors.New("container run: no image")
	}
	cfg := &container.Config{
		Image:       spec.Image,
		Entrypoint:  spec.Entrypoint,
		Cmd:         spec.Cmd,
		Env:         spec.Env,
		Labels:      e.Labels(spec.Labels),
		StopTimeout: spec.StopTimeout,
		StopSignal:  spec.StopSignal,
		User:        spec.User,
	}
	hc := &container.HostConfig{}
	if spec.Init {
		t := true
		hc.Init = &t
	}
	hc.NanoCPUs = spec.NanoCPUs
	hc.Memory = spec.MemoryBytes
	if spec.PidsLimit > 0 {
		hc.PidsLimit = &spec.PidsLimit
	}
	if spec.LogMaxSize != "" {
		hc.LogConfig = container.LogConfig{Type: "json-file", Config: map[string]string{"max-size": spec.LogMaxSize}}
	}
	var nc *network.NetworkingConfig
	if spec.Network != "" {
		hc.NetworkMode = container.NetworkMode(spec.Network)
		nc = &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
			spec.Network: {Aliases: spec.Aliases},
		}}
	}
	res, err := e.cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Name: spec.Name, Config: cfg, HostConfig: hc, NetworkingConfig: nc,
	})
	if err != nil {
		return nil, fmt.Errorf("container create %s: %w", spec.Name, wrapNotFound(err))
	}
	c := &Container{ID: res.ID, Name: spec.Name}
	if c.Name == "" {
		c.Name = shortID(res.ID)
	}
	if _, err := e.cli.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		rmErr := e.Remove(rctx, res.ID)
		return nil, errors.Join(fmt.Errorf("container start %s: %w", c.Name, err), rmErr)
	}
	return c, nil
}

// Kill sends a signal ("SIGTERM", "TERM", "15"; "" means SIGKILL) to the
// container's main process, like docker kill -s.
func (e *Engine) Kill(ctx context.Context, id, signal string) error {
	if _, err := e.cli.ContainerKill(ctx, id, client.ContainerKillOptions{Signal: signal}); err != nil {
		return fmt.Errorf("container kill %s: %w", id, wrapNotFound(err))
	}
	return nil
}

// Stop is docker stop -t: it sends the stop signal, waits up to timeout
// seconds, then SIGKILLs. A nil timeout uses the container's own
// StopTimeout (or the daemon default, 10 s). It returns when the container
// has stopped.
func (e *Engine) Stop(ctx context.Context, id string, timeout *int) error {
	if _, err := e.cli.ContainerStop(ctx, id, client.ContainerStopOptions{Timeout: timeout}); err != nil {
		return fmt.Errorf("container stop %s: %w", id, wrapNotFound(err))
	}
	return nil
}

// Remove force-removes a container and its anonymous volumes. Removing a
// container that no longer exists is not an error.
func (e *Engine) Remove(ctx context.Context, id string) error {
	_, err := e.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) && !isRemovalInProgress(err) {
		return fmt.Errorf("container remove %s: %w", id, err)
	}
	return nil
}

// State is the part of a container's inspect data the harness uses.
type State struct {
	ID   string
	Name string
	// Status is the engine's status word: created, running, exited, ...
	Status  string
	Running bool
	// ExitCode is the main process's exit code (meaningful once exited).
	ExitCode  int
	OOMKilled bool
	// Error is the engine's error text for the container, if any.
	Error string
	// StartedAt and FinishedAt are the engine's timestamps (nanosecond
	// precision); zero when the container never started / has not
	// finished.
	StartedAt  time.Time
	FinishedAt time.Time
	// StopTimeout is the container's configured stop grace in seconds (nil
	// when unset: the daemon default applies); StopSignal likewise ("" when
	// unset: SIGTERM).
	StopTimeout *int
	StopSignal  string
	// Init reports whether Docker's init runs as PID 1.
	Init bool
	// Pid is the container's init process as the engine's PID namespace
	// numbers it (inspect's State.Pid); 0 when it is not running.
	Pid int
	// Labels are the container's labels.
	Labels map[string]string
	// IPs maps each attached network's name to the container's IPv4
	// address on it (empty while not running).
	IPs map[string]string
}

// IP returns the container's address on the named network ("" if none).
func (s State) IP(network string) string { return s.IPs[network] }

// Exited reports whether the container has run and is no longer running.
func (s State) Exited() bool { return !s.Running && !s.FinishedAt.IsZero() }

// Inspect reads a container's state. A missing container gives an error
// matching ErrNotFound.
func (e *Engine) Inspect(ctx context.Context, id string) (State, error) {
	res, err := e.cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return State{}, fmt.Errorf("container inspect %s: %w", id, wrapNotFound(err))
	}
	c := res.Container
	s := State{ID: c.ID, Name: trimSlash(c.Name), IPs: map[string]string{}}
	if st := c.State; st != nil {
		s.Status = string(st.Status)
		s.Running = st.Running
		s.ExitCode = st.ExitCode
		s.Pid = st.Pid
		s.OOMKilled = st.OOMKilled
		s.Error = st.Error
		s.StartedAt = parseTime(st.StartedAt)
		s.FinishedAt = parseTime(st.FinishedAt)
	}
	if cfg := c.Config; cfg != nil {
		s.StopTimeout = cfg.StopTimeout
		s.StopSignal = cfg.StopSignal
		s.Labels = cfg.Labels
	}
	if hc := c.HostConfig; hc != nil && hc.Init != nil {
		s.Init = *hc.Init
	}
	if ns := c.NetworkSettings; ns != nil {
		for name, ep := range ns.Networks {
			if ep != nil && ep.IPAddress.IsValid() {
				s.IPs[name] = ep.IPAddress.String()
			}
		}
	}
	return s, nil
}

// parseTime parses an engine timestamp; the engine's zero value
// ("0001-01-01T00:00:00Z") and unparsable text give the zero time.
func parseTime(v string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil || t.Year() <= 1 {
		return time.Time{}
	}
	return t
}

func trimSlash(s string) string {
	if len(s) > 0 && s[0] == '/' {
		return s[1:]
	}
	return s
}

// WaitExit waits up to window for the container to stop running. It
// returns exited=true with the engine's final state (FinishedAt, ExitCode)
// when it stopped, or exited=false with the current state when the window
// passed first ("never exited" is a normal outcome, not an error). Errors
// are reserved for engine failures and ctx cancellation.
func (e *Engine) WaitExit(ctx context.Context, id string, window time.Duration) (bool, State, error) {
	wctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	w := e.cli.ContainerWait(wctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	var waitErr error
	select {
	case <-w.Result:
	case err := <-w.Error:
		waitErr = err
	case <-wctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return false, State{}, fmt.Errorf("container wait %s: %w", id, err)
	}
	// Inspect with the caller's ctx: the window may have just ended.
	st, err := e.Inspect(ctx, id)
	if err != nil {
		return false, st, err
	}
	if st.Exited() {
		return true, st, nil
	}
	if waitErr != nil && wctx.Err() == nil {
		return false, st, fmt.Errorf("container wait %s: %w", id, wrapNotFound(waitErr))
	}
	return false, st, nil
}

// wrapNotFound makes the engine's 404s match ErrNotFound too, keeping the
// original error in the chain.
func wrapNotFound(err error) error {
	if err != nil && cerrdefs.IsNotFound(err) && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}
