package loadgen

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Shape is the load shape of a run.
type Shape string

const (
	// ShapeClosed is a closed loop: Clients clients, each on its own
	// keep-alive connection, each sending its next request when the previous
	// one has ended (plus Think).
	ShapeClosed Shape = "closed"
	// ShapeOpen is an open loop: requests are scheduled at a constant Rate
	// and handed to a pool of Workers; a slot that finds no free worker is
	// started late or recorded as not_sent.
	ShapeOpen Shape = "open"
)

// Defaults, applied by Config.WithDefaults to zero-valued fields.
const (
	// DefaultClients is the closed-loop client count.
	DefaultClients = 20
	// DefaultDuration bounds a run in time.
	DefaultDuration = 10 * time.Second
	// DefaultMaxRequests bounds a run in count.
	DefaultMaxRequests = 100000
	// DefaultTimeout is the per-request timeout (dial + write + read).
	DefaultTimeout = 30 * time.Second
	// DefaultDialTimeout bounds a connect (within the request timeout).
	DefaultDialTimeout = 3 * time.Second
	// DefaultDrain is how long in-flight requests may run after the load
	// stopped before they are cut off as "agent stopping".
	DefaultDrain = 10 * time.Second
	// DefaultMaxLateness is how late an open-loop slot may start before it
	// is recorded as not_sent.
	DefaultMaxLateness = time.Second
	// DefaultSeed seeds the request-mix RNGs.
	DefaultSeed = 1
)

// MixEntry is one kind of request in the weighted request mix.
type MixEntry struct {
	// Method is the HTTP method, e.g. "GET" or "POST".
	Method string
	// Path is the request target, including any query ("/slow?ms=300").
	Path string
	// Weight is the entry's relative frequency (≥ 1).
	Weight int
	// BodyBytes is the size of the request body (0: no body).
	BodyBytes int
}

// Config configures one run. The zero value of every field means "use the
// default" (see WithDefaults); Target is the only required field.
type Config struct {
	// Target is the server address, host:port. Required.
	Target string
	// Host is the Host header value (default: Target).
	Host string
	// Shape is the load shape (default ShapeClosed).
	Shape Shape
	// Clients is the number of closed-loop clients (default 20).
	Clients int
	// Rate is the open-loop request rate in requests per second; required
	// (> 0) for ShapeOpen, ignored for ShapeClosed.
	Rate float64
	// Workers is the open-loop worker pool size, each worker with its own
	// keep-alive connection (default: Clients).
	Workers int
	// MaxLateness is how late an open-loop slot may start before it is
	// recorded as not_sent instead (default 1 s).
	MaxLateness time.Duration
	// Duration bounds the run in time (default 10 s).
	Duration time.Duration
	// MaxRequests bounds the run in count: requests started plus not_sent
	// slots (default 100000). There is no unbounded run.
	MaxRequests int
	// Timeout is the per-request timeout covering dial, write and read
	// (default 30 s).
	Timeout time.Duration
	// Drain is how long requests in flight when the load stops may take to
	// finish; those still running after it end as timeout with the error
	// "agent stopping" (default 10 s).
	Drain time.Duration
	// Think is the pause between one closed-loop request's end and the same
	// client's next request (default 0).
	Think time.Duration
	// DialTimeout bounds establishing a new connection, within Timeout
	// (default 3 s: a SYN and two retransmits). A connect to an address
	// that has gone away (a removed container) would otherwise hang for
	// the whole Timeout.
	DialTimeout time.Duration
	// FailPause is how long a closed-loop client waits after a request
	// that did not end ok before its next one (default 0). Without it a
	// client facing a dead target counts connection refusals as fast as
	// it can dial, a number that measures the client, not the service.
	// The failed request is still recorded as failed, never retried.
	FailPause time.Duration
	// Stagger spreads the closed-loop clients' first requests evenly over
	// this span: client w starts at w*Stagger/Clients after load start
	// (default 0: all at once). Clients with identical requests started
	// together stay in lockstep, so an action lands on a request boundary
	// and the outcome depends on timing luck; one request period of
	// stagger puts the in-flight requests at every stage of completion.
	Stagger time.Duration
	// Mix is the weighted request mix (default: GET / with weight 1).
	Mix []MixEntry
	// IDPrefix starts every X-Request-Id: "<IDPrefix>-<seq>", seq from 1.
	// Two agents must use different prefixes (default: 8 random hex digits).
	IDPrefix string
	// Seed seeds the mix RNGs; same seed, same per-client sequence of picks
	// (default 1).
	Seed uint64
	// StartAt, when set, delays the load until that wall-clock time.
	StartAt time.Time
	// Once are one-off requests sent at load start + At, each on its own
	// new connection (for example the GET /job that starts a background
	// job). They are recorded and counted like any other request; one
	// whose moment comes after the load stopped is recorded as not_sent.
	Once []OnceRequest
}

// OnceRequest is a one-off request at a fixed offset from load start.
type OnceRequest struct {
	// At is the offset from load start.
	At time.Duration
	// Entry is the request (its Weight is ignored).
	Entry MixEntry
}

// ParseOnce parses one-off requests: entries "METHOD PATH @OFFSET"
// separated by ';', e.g. "GET /job?steps=30&step_ms=500 @0s".
func ParseOnce(s string) ([]OnceRequest, error) {
	var out []OnceRequest
	for _, part := range strings.Split(s, ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 || !strings.HasPrefix(f[2], "@") {
			return nil, fmt.Errorf("%q: want METHOD PATH @OFFSET", strings.TrimSpace(part))
		}
		at, err := time.ParseDuration(f[2][1:])
		if err != nil || at < 0 {
			return nil, fmt.Errorf("%q: bad offset %q", strings.TrimSpace(part), f[2])
		}
		e := MixEntry{Method: f[0], Path: f[1], Weight: 1}
		if err := e.validate(); err != nil {
			return nil, err
		}
		out = append(out, OnceRequest{At: at, Entry: e})
	}
	return out, nil
}

// ValidationError says which Config field has an unusable value.
type ValidationError struct {
	// Field is the Config field name, e.g. "Clients".
	Field string
	// Value is the offending value as text.
	Value string
	// Reason says what is wrong.
	Reason string
}

// Error implements error.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("loadgen: invalid %s=%q: %s", e.Field, e.Value, e.Reason)
}

// WithDefaults returns c with every zero-valued field set to its default.
// It is the one place defaults are set.
func (c Config) WithDefaults() Config {
	if c.Host == "" {
		c.Host = c.Target
	}
	if c.Shape == "" {
		c.Shape = ShapeClosed
	}
	if c.Clients == 0 {
		c.Clients = DefaultClients
	}
	if c.Workers == 0 {
		c.Workers = c.Clients
	}
	if c.MaxLateness == 0 {
		c.MaxLateness = DefaultMaxLateness
	}
	if c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.MaxRequests == 0 {
		c.MaxRequests = DefaultMaxRequests
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Drain == 0 {
		c.Drain = DefaultDrain
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if len(c.Mix) == 0 {
		c.Mix = []MixEntry{{Method: "GET", Path: "/", Weight: 1}}
	}
	if c.IDPrefix == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		c.IDPrefix = hex.EncodeToString(b[:])
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	return c
}

func invalid(field, value, reason string) error {
	return &ValidationError{Field: field, Value: value, Reason: reason}
}

func durStr(d time.Duration) string { return d.String() }

// Validate checks a Config that has had WithDefaults applied and returns a
// *ValidationError naming the first bad field.
func (c Config) Validate() error {
	if c.Target == "" {
		return invalid("Target", "", "required (host:port)")
	}
	if _, port, err := net.SplitHostPort(c.Target); err != nil || port == "" {
		return invalid("Target", c.Target, "want host:port")
	}
	if strings.ContainsAny(c.Host, " \r\n\t") {
		return invalid("Host", c.Host, "must not contain spaces or line breaks")
	}
	switch c.Shape {
	case ShapeClosed, ShapeOpen:
	default:
		return invalid("Shape", string(c.Shape), `want "closed" or "open"`)
	}
	if c.Clients < 1 || c.Clients > 100000 {
		return invalid("Clients", strconv.Itoa(c.Clients), "want 1..100000")
	}
	if c.Workers < 1 || c.Workers > 100000 {
		return invalid("Workers", strconv.Itoa(c.Workers), "want 1..100000")
	}
	if c.Shape == ShapeOpen && !(c.Rate > 0 && c.Rate <= 10e6) {
		return invalid("Rate", strconv.FormatFloat(c.Rate, 'g', -1, 64), "open loop needs 0 < rate <= 1e7 req/s")
	}
	if c.Rate < 0 {
		return invalid("Rate", strconv.FormatFloat(c.Rate, 'g', -1, 64), "must not be negative")
	}
	if c.MaxLateness < 0 {
		return invalid("MaxLateness", durStr(c.MaxLateness), "must be > 0")
	}
	if c.Duration < 0 {
		return invalid("Duration", durStr(c.Duration), "must be > 0")
	}
	if c.MaxRequests < 1 {
		return invalid("MaxRequests", strconv.Itoa(c.MaxRequests), "must be >= 1")
	}
	if c.Timeout < 0 {
		return invalid("Timeout", durStr(c.Timeout), "must be > 0")
	}
	if c.Drain < 0 {
		return invalid("Drain", durStr(c.Drain), "must be > 0")
	}
	if c.DialTimeout < 0 {
		return invalid("DialTimeout", durStr(c.DialTimeout), "must be > 0")
	}
	if c.Stagger < 0 || c.Stagger > c.Duration {
		return invalid("Stagger", durStr(c.Stagger), "must be in 0..Duration")
	}
	if c.FailPause < 0 {
		return invalid("FailPause", durStr(c.FailPause), "must not be negative")
	}
	if c.Think < 0 {
		return invalid("Think", durStr(c.Think), "must not be negative")
	}
	if strings.ContainsAny(c.IDPrefix, " \r\n\t") {
		return invalid("IDPrefix", c.IDPrefix, "must not contain spaces or line breaks")
	}
	for i, e := range c.Mix {
		if err := e.validate(); err != nil {
			return invalid(fmt.Sprintf("Mix[%d]", i), e.String(), err.Error())
		}
	}
	return nil
}

func (e MixEntry) validate() error {
	if e.Method == "" || strings.ContainsAny(e.Method, " \r\n\t/") {
		return fmt.Errorf("bad method %q", e.Method)
	}
	if !strings.HasPrefix(e.Path, "/") || strings.ContainsAny(e.Path, " \r\n\t") {
		return fmt.Errorf("bad path %q (must start with / and contain no spaces)", e.Path)
	}
	if e.Weight < 1 {
		return fmt.Errorf("weight %d must be >= 1", e.Weight)
	}
	if e.BodyBytes < 0 || e.BodyBytes > 64<<20 {
		return fmt.Errorf("body bytes %d out of range 0..%d", e.BodyBytes, 64<<20)
	}
	return nil
}

// String renders the entry in ParseMix syntax.
func (e MixEntry) String() string {
	return fmt.Sprintf("%s %s %d %d", e.Method, e.Path, e.Weight, e.BodyBytes)
}

// ParseMix parses the compact mix syntax: entries separated by ';', each
// "METHOD PATH [WEIGHT [BODYBYTES]]" separated by spaces. WEIGHT defaults to
// 1 and BODYBYTES to 0. Example: "GET /slow?ms=300 1; POST /write?ms=300 1 64".
func ParseMix(s string) ([]MixEntry, error) {
	var out []MixEntry
	for i, part := range strings.Split(s, ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 || len(f) > 4 {
			return nil, fmt.Errorf("mix entry %d %q: want METHOD PATH [WEIGHT [BODYBYTES]]", i+1, strings.TrimSpace(part))
		}
		e := MixEntry{Method: strings.ToUpper(f[0]), Path: f[1], Weight: 1}
		var err error
		if len(f) > 2 {
			if e.Weight, err = strconv.Atoi(f[2]); err != nil {
				return nil, fmt.Errorf("mix entry %d %q: weight %q is not an integer", i+1, strings.TrimSpace(part), f[2])
			}
		}
		if len(f) > 3 {
			if e.BodyBytes, err = strconv.Atoi(f[3]); err != nil {
				return nil, fmt.Errorf("mix entry %d %q: body bytes %q is not an integer", i+1, strings.TrimSpace(part), f[3])
			}
		}
		if err := e.validate(); err != nil {
			return nil, fmt.Errorf("mix entry %d %q: %w", i+1, strings.TrimSpace(part), err)
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("mix %q has no entries", s)
	}
	return out, nil
}
