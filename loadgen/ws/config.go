package ws

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// Config is one WebSocket load: Clients long-lived clients on URL for
// Duration.
type Config struct {
	// URL is the stream's address, ws://host:port/events; the driver talks
	// to nothing else.
	URL string
	// Clients is the number of long-lived clients, 1..100000.
	Clients int
	// Policy is how each client reconnects.
	Policy Policy
	// Resume makes a reconnect send ?after=CURSOR, the highest sequence
	// number the client delivered minus ResumeOverlap (an at-least-once
	// cursor: the overlap comes back as duplicates).
	Resume        bool
	ResumeOverlap int64
	// DedupeSize is the client's id cache size; 0 disables deduplication.
	DedupeSize int
	// MaxAttempts bounds each client's connection attempts.
	MaxAttempts int
	// Duration is how long the load runs; the run also ends when its
	// context does.
	Duration time.Duration
	// HandshakeTimeout bounds each handshake (default 5 s).
	HandshakeTimeout time.Duration
	// CloseTimeout bounds a stopping client's closing handshake; then its
	// connection is closed (default 2 s).
	CloseTimeout time.Duration
	// Seed seeds each client's random source (client i uses Seed and i),
	// so a run's delays can be reproduced.
	Seed uint64
	// Ramp spreads the clients' first attempts: client i starts
	// i·Ramp/Clients after the run began (0: all at once).
	Ramp time.Duration
	// RawPeers makes the first RawPeers clients raw peers: they open the
	// stream with a hand-written handshake, read its frames, and never
	// answer a close frame (the peer a close deadline exists for). Each
	// connects once; 0..Clients.
	RawPeers int
	// OnStarted, when set, is called once, when every client has made its
	// first attempt (opened or not): the load has started. It must not
	// block.
	OnStarted func()
}

// withDefaults fills the zero timeouts.
func (c Config) withDefaults() Config {
	if c.HandshakeTimeout == 0 {
		c.HandshakeTimeout = 5 * time.Second
	}
	if c.CloseTimeout == 0 {
		c.CloseTimeout = 2 * time.Second
	}
	return c
}

// Validate returns every problem of c, each naming the field and value.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	u, err := url.Parse(c.URL)
	switch {
	case err != nil:
		bad("url %q: %v", c.URL, err)
	case u.Scheme != "ws" || u.Host == "":
		bad("url %q: must be ws://host:port/path", c.URL)
	case u.RawQuery != "" && c.Resume:
		bad("url %q: no query with resume (the driver adds after=)", c.URL)
	}
	if c.Clients < 1 || c.Clients > 100000 {
		bad("clients %d: must be in 1..100000", c.Clients)
	}
	if err := c.Policy.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.RawPeers < 0 || c.RawPeers > c.Clients {
		bad("raw peers %d: must be in 0..clients (%d)", c.RawPeers, c.Clients)
	}
	if c.ResumeOverlap < 0 {
		bad("resume overlap %d: must be >= 0", c.ResumeOverlap)
	}
	if c.DedupeSize < 0 {
		bad("dedupe size %d: must be >= 0", c.DedupeSize)
	}
	if c.MaxAttempts < 1 {
		bad("max attempts %d: must be >= 1", c.MaxAttempts)
	}
	if c.Duration <= 0 {
		bad("duration %v: must be > 0", c.Duration)
	}
	if c.Ramp < 0 || c.Ramp >= c.Duration && c.Duration > 0 {
		bad("ramp %v: must be in [0, duration %v)", c.Ramp, c.Duration)
	}
	if c.HandshakeTimeout < 0 || c.CloseTimeout < 0 {
		bad("timeouts %v, %v: must be >= 0 (0: default)", c.HandshakeTimeout, c.CloseTimeout)
	}
	return errors.Join(errs...)
}
