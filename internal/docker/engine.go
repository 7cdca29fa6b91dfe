// Package docker is shutdownlab's thin runtime layer over the Docker Engine
// API (github.com/moby/moby/client). It creates labelled networks and
// containers, signals and stops them, reads their state, logs and files, and
// builds images from in-memory tar contexts with the legacy builder.
//
// Every object it creates carries the label [LabelManaged]=1 and
// [LabelSession]=<session id>, so [Engine.Clean] can remove leftovers of runs
// that were killed. The package knows nothing about shutdown experiments.
package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"runtime"

	"github.com/moby/moby/client"
)

// Label keys set on the objects this package creates.
const (
	// LabelManaged marks every container, network and volume created here;
	// its value is "1". [Engine.Clean] removes everything that carries it.
	LabelManaged = "shutdownlab"
	// LabelSession holds the session id of the [Engine] that created the
	// object.
	LabelSession = "shutdownlab.session"
	// LabelImage marks images built for shutdownlab (value "1"). It is kept
	// apart from LabelManaged so that Clean never removes cached images;
	// [Engine.PruneImages] removes them on request.
	LabelImage = "shutdownlab.image"
)

// ErrNotFound is returned (wrapped) when a file, container, network or image
// does not exist.
var ErrNotFound = errors.New("not found")

// Engine is a connection to one Docker daemon, tagged with a session id.
// It is safe for concurrent use.
type Engine struct {
	cli     *client.Client
	session string
}

// Option configures [New].
type Option func(*Engine)

// WithSession sets the session id stamped on every created object (default: a
// random 12-hex-digit id).
func WithSession(id string) Option {
	return func(e *Engine) {
		if id != "" {
			e.session = id
		}
	}
}

// New connects to the daemon described by the environment (DOCKER_HOST,
// DOCKER_TLS_VERIFY, DOCKER_CERT_PATH, DOCKER_API_VERSION), negotiates the
// API version with it and pings it. When the daemon cannot be reached the
// error reads "Docker daemon unreachable at <host>: <err>".
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	e := &Engine{cli: cli, session: randomID()}
	for _, o := range opts {
		o(e)
	}
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("Docker daemon unreachable at %s: %w", cli.DaemonHost(), err)
	}
	return e, nil
}

func randomID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Close releases the client's connections.
func (e *Engine) Close() error { return e.cli.Close() }

// Client returns the underlying moby client, for calls this package does not
// wrap.
func (e *Engine) Client() *client.Client { return e.cli }

// Host returns the daemon address in use (for example
// unix:///var/run/docker.sock).
func (e *Engine) Host() string { return e.cli.DaemonHost() }

// Session returns the session id stamped on created objects.
func (e *Engine) Session() string { return e.session }

// Labels returns the labels for a new object: extra, then LabelManaged=1 and
// LabelSession=<session> (which extra cannot override).
func (e *Engine) Labels(extra map[string]string) map[string]string {
	l := make(map[string]string, len(extra)+2)
	maps.Copy(l, extra)
	l[LabelManaged] = "1"
	l[LabelSession] = e.session
	return l
}

// Info describes the daemon and its machine, for a run's fingerprint.
type Info struct {
	// ServerVersion is the engine version, e.g. "20.10.24+dfsg1".
	ServerVersion string `json:"server_version"`
	// APIVersion is the newest API version the daemon supports; ClientAPI is
	// the version negotiated and used by this client.
	APIVersion string `json:"api_version"`
	ClientAPI  string `json:"client_api_version"`
	// Arch is the daemon's architecture as a GOARCH value (amd64, arm64).
	Arch string `json:"arch"`
	// OSType is the daemon's GOOS ("linux"); OS is the host's operating
	// system description ("Debian GNU/Linux 12 (bookworm)").
	OSType string `json:"os_type"`
	OS     string `json:"os"`
	// Kernel is the host kernel version.
	Kernel string `json:"kernel"`
	// NCPU is the number of CPUs the daemon sees; MemTotal is its memory in
	// bytes.
	NCPU     int   `json:"ncpu"`
	MemTotal int64 `json:"mem_total"`
	// CgroupVersion ("1" or "2") and StorageDriver ("overlay2").
	CgroupVersion string `json:"cgroup_version,omitempty"`
	StorageDriver string `json:"storage_driver,omitempty"`
}

// Info asks the daemon for its version and machine facts.
func (e *Engine) Info(ctx context.Context) (Info, error) {
	v, err := e.cli.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		return Info{}, fmt.Errorf("docker version: %w", err)
	}
	res, err := e.cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		return Info{}, fmt.Errorf("docker info: %w", err)
	}
	i := res.Info
	arch := v.Arch
	if arch == "" {
		arch = i.Architecture
	}
	return Info{
		ServerVersion: v.Version,
		APIVersion:    v.APIVersion,
		ClientAPI:     e.cli.ClientVersion(),
		Arch:          GoArch(arch),
		OSType:        i.OSType,
		OS:            i.OperatingSystem,
		Kernel:        i.KernelVersion,
		NCPU:          i.NCPU,
		MemTotal:      i.MemTotal,
		CgroupVersion: i.CgroupVersion,
		StorageDriver: i.Driver,
	}, nil
}

// GoArch maps an architecture name as reported by a daemon or uname
// (x86_64, aarch64, ...) to its GOARCH value. Unknown names pass through;
// "" maps to the local runtime.GOARCH.
func GoArch(arch string) string {
	switch arch {
	case "":
		return runtime.GOARCH
	case "x86_64", "x86-64":
		return "amd64"
	case "aarch64", "arm64/v8":
		return "arm64"
	case "armv7l", "armhf":
		return "arm"
	case "i386", "i686":
		return "386"
	}
	return arch
}
