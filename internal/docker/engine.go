// Package docker is shutdownlab's thin runtime layer over the Docker Engine
// API (github.com/moby/moby/client). It creates labelled networks and
// containers, signals and stops them, reads their state, logs and files, and
// builds images from in-memory tar contexts with the legacy builder.
//
// Every object it creates carries the label [LabelManaged]=1,
// [LabelSession]=<session id> and its owner (host, pid and start time of the
// creating process: [LabelOwnerHost], [LabelOwnerPID], [LabelOwnerStart]), so
// [Engine.CleanOrphans] can remove the leftovers of runs that were killed
// without touching those of runs still going. The package knows nothing
// about shutdown experiments.
package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"time"

	"github.com/moby/moby/client"
)

// Label keys set on the objects this package creates.
const (
	// LabelManaged marks every container, network and volume created here;
	// its value is "1". [Engine.CleanOrphans] removes what carries it once its owner is gone (everything, with its All option).
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
	cli         *client.Client
	session     string
	owner       Owner
	pingTimeout time.Duration
}

// DefaultPingTimeout bounds the first call to the daemon in [New]: a socket
// that accepts connections and never answers fails after this long instead
// of hanging. TimeoutEnv overrides it.
const DefaultPingTimeout = 10 * time.Second

// TimeoutEnv is the environment variable that overrides
// DefaultPingTimeout, as a Go duration ("30s").
const TimeoutEnv = "SHUTDOWNLAB_DOCKER_TIMEOUT"

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

// WithOwner sets the owner stamped on every created object (default:
// CurrentOwner). Tests use it to make objects of a process that is gone.
func WithOwner(o Owner) Option { return func(e *Engine) { e.owner = o } }

// WithPingTimeout bounds the ping in New (default DefaultPingTimeout, or
// TimeoutEnv); d <= 0 keeps the default.
func WithPingTimeout(d time.Duration) Option {
	return func(e *Engine) {
		if d > 0 {
			e.pingTimeout = d
		}
	}
}

// New connects to the daemon described by the environment (DOCKER_HOST,
// DOCKER_TLS_VERIFY, DOCKER_CERT_PATH, DOCKER_API_VERSION), negotiates the
// API version with it and pings it, waiting at most the ping timeout. When
// the daemon cannot be reached the error reads "Docker daemon unreachable
// at <host>: <err>"; when it does not answer in time, "Docker daemon at
// <host> did not answer within <d> (...)", naming DOCKER_HOST.
func New(ctx context.Context, opts ...Option) (*Engine, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	e := &Engine{cli: cli, session: randomID(), owner: CurrentOwner(), pingTimeout: DefaultPingTimeout}
	if d, err := time.ParseDuration(os.Getenv(TimeoutEnv)); err == nil && d > 0 {
		e.pingTimeout = d
	}
	for _, o := range opts {
		o(e)
	}
	pctx, cancel := context.WithTimeout(ctx, e.pingTimeout)
	defer cancel()
	if _, err := cli.Ping(pctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		_ = cli.Close()
		if ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("Docker daemon at %s did not answer within %v (%s; %s=DURATION waits longer)",
				cli.DaemonHost(), e.pingTimeout, hostSource(), TimeoutEnv)
		}
		return nil, fmt.Errorf("Docker daemon unreachable at %s: %w", cli.DaemonHost(), err)
	}
	return e, nil
}

// hostSource says where the daemon address came from.
func hostSource() string {
	if h, ok := os.LookupEnv("DOCKER_HOST"); ok && h != "" {
		return "DOCKER_HOST=" + h
	}
	return "DOCKER_HOST is unset: the default socket"
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

// Owner returns the owner stamped on created objects.
func (e *Engine) Owner() Owner { return e.owner }

// Labels returns the labels for a new object: extra, then LabelManaged=1,
// LabelSession=<session> and the owner labels (which extra cannot
// override).
func (e *Engine) Labels(extra map[string]string) map[string]string {
	l := make(map[string]string, len(extra)+5)
	maps.Copy(l, extra)
	l[LabelManaged] = "1"
	l[LabelSession] = e.session
	maps.Copy(l, e.owner.labels())
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
