package runner

import (
	"context"
	"io"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// engine is the part of the container runtime a run uses: exactly the
// methods the runner calls on *docker.Engine, so a run can be driven by an
// in-memory fake in unit tests (fakeengine_test.go). Each method's contract
// is the *docker.Engine method's of the same name.
type engine interface {
	// Session is the id every object of this runner is labelled with.
	Session() string
	// CreateNetwork creates a labelled network.
	CreateNetwork(ctx context.Context, name string, labels map[string]string) (string, error)
	// Run creates and starts a container; a failed Run leaves nothing.
	Run(ctx context.Context, spec docker.ContainerSpec) (*docker.Container, error)
	// Inspect reads a container's state.
	Inspect(ctx context.Context, id string) (docker.State, error)
	// Kill sends a signal (docker kill -s).
	Kill(ctx context.Context, id, signal string) error
	// Stop stops a container (docker stop -t timeout; nil: its own grace).
	Stop(ctx context.Context, id string, timeout *int) error
	// WaitExit waits up to window for the container to stop running.
	WaitExit(ctx context.Context, id string, window time.Duration) (bool, docker.State, error)
	// WaitLog waits up to timeout for a line containing substr.
	WaitLog(ctx context.Context, id, substr string, timeout time.Duration) error
	// Logs copies the container's output (follow: until it stops).
	Logs(ctx context.Context, id string, follow bool, stdout, stderr io.Writer) error
	// LogsAll returns the container's whole output so far.
	LogsAll(ctx context.Context, id string) (stdout, stderr []byte, err error)
	// CopyFileFrom reads one file out of a container (docker.ErrNotFound
	// when it does not exist).
	CopyFileFrom(ctx context.Context, id, path string) ([]byte, error)
	// WatchKills collects the engine's kill events for a container.
	WatchKills(ctx context.Context, id string) (*docker.KillWatch, error)
	// Sweep removes every object carrying the labels in match.
	Sweep(ctx context.Context, match map[string]string) (docker.Removed, error)
	// ImageInfo reads a local image's configuration (its own environment,
	// for a user's image).
	ImageInfo(ctx context.Context, ref string) (docker.ImageInfo, error)
}

var (
	_ engine           = (*docker.Engine)(nil)
	_ containerWatcher = (engine)(nil)
)
