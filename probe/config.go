package probe

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// Kind is what the probe's one request is for (record.ProbeKind).
type Kind = record.ProbeKind

// The probe kinds.
const (
	// KindIdle sends one short request (default GET /slow?ms=0) and then
	// watches the idle keep-alive socket. Load start = response end.
	KindIdle = record.ProbeIdle
	// KindInflight sends one long request (default GET /slow?ms=4000), so
	// that it is in flight when the signal comes, then watches the socket.
	// Load start = request written.
	KindInflight = record.ProbeInflight
)

// Defaults applied by Config.WithDefaults.
const (
	DefaultIdleMs      = 0
	DefaultInflightMs  = 4000
	DefaultTimeout     = 60 * time.Second
	DefaultMaxWait     = 30 * time.Second
	DefaultDialTimeout = 5 * time.Second
	DefaultID          = "probe"
)

// Config is one probe.
type Config struct {
	// Kind is idle or inflight.
	Kind Kind
	// Target is the server's host:port.
	Target string
	// Host is the Host header (default: Target).
	Host string
	// Path is the request path with its query (default: SlowPath of
	// DefaultIdleMs or DefaultInflightMs, by Kind).
	Path string
	// ID is the X-Request-Id the request carries (default "probe").
	ID string
	// DialTimeout bounds the connect.
	DialTimeout time.Duration
	// Timeout bounds writing the request and reading the whole response,
	// from the moment the connection was established.
	Timeout time.Duration
	// MaxWait bounds the wait for the server to close the socket, counted
	// from the end of the response.
	MaxWait time.Duration
}

// SlowPath is the target protocol's /slow path for a request of ms
// milliseconds.
func SlowPath(ms int) string { return "/slow?ms=" + strconv.Itoa(ms) }

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.Host == "" {
		c.Host = c.Target
	}
	if c.Path == "" {
		ms := DefaultIdleMs
		if c.Kind == KindInflight {
			ms = DefaultInflightMs
		}
		c.Path = SlowPath(ms)
	}
	if c.ID == "" {
		c.ID = DefaultID
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxWait == 0 {
		c.MaxWait = DefaultMaxWait
	}
	return c
}

// ConfigError says which setting of a Config is invalid.
type ConfigError struct {
	// Field is the cmd/probe flag name of the setting (kind, target, host,
	// path, id, dial-timeout, timeout, max-wait).
	Field string
	// Value is the offending value as text.
	Value string
	// Reason says what is wrong with it.
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("invalid %s %q: %s", e.Field, e.Value, e.Reason)
}

// Validate checks c after WithDefaults; it returns a *ConfigError or nil.
func (c Config) Validate() error {
	bad := func(field, value, reason string) error {
		return &ConfigError{Field: field, Value: value, Reason: reason}
	}
	if c.Kind != KindIdle && c.Kind != KindInflight {
		return bad("kind", string(c.Kind), "must be idle or inflight")
	}
	if c.Target == "" {
		return bad("target", c.Target, "required (host:port)")
	}
	if h, p, err := net.SplitHostPort(c.Target); err != nil || h == "" || p == "" {
		return bad("target", c.Target, "must be host:port")
	}
	if c.Host == "" || strings.ContainsAny(c.Host, " \t\r\n") {
		return bad("host", c.Host, "must be non-empty with no white space")
	}
	if !strings.HasPrefix(c.Path, "/") || strings.ContainsAny(c.Path, " \t\r\n") {
		return bad("path", c.Path, "must start with / and contain no white space")
	}
	if c.ID == "" || strings.ContainsAny(c.ID, "\r\n") {
		return bad("id", c.ID, "must be non-empty, one line")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"dial-timeout", c.DialTimeout}, {"timeout", c.Timeout}, {"max-wait", c.MaxWait}} {
		if d.v <= 0 {
			return bad(d.name, d.v.String(), "must be > 0")
		}
	}
	return nil
}
