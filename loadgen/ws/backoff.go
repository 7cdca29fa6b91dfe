package ws

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// PolicyKind names how a client waits before reconnecting.
type PolicyKind string

// The reconnect policies.
const (
	// Immediate reconnects at once: the reconnect storm.
	Immediate PolicyKind = "immediate"
	// Exponential waits min(cap, base·2^retry).
	Exponential PolicyKind = "exponential"
	// FullJitter waits a uniformly random duration in
	// [0, min(cap, base·2^retry)).
	FullJitter PolicyKind = "full-jitter"
)

// maxCap bounds Policy.Cap (and so every delay).
const maxCap = time.Hour

// Policy is a client's reconnect policy.
type Policy struct {
	// Kind is Immediate, Exponential or FullJitter.
	Kind PolicyKind
	// Base and Cap bound the exponential and full-jitter delays.
	Base, Cap time.Duration
	// StableAfter is how long a connection must stay open before the
	// retry counter resets to 0; 0 resets it on every open, which keeps a
	// client in the shortest window when a server accepts and then fails.
	StableAfter time.Duration
	// DoubleSchedule is the double-schedule bug: a connection that ends in
	// an error (a failed handshake, or an end without a close frame) is
	// rescheduled twice, once by its error handler and once by its close
	// handler, as a browser client that reconnects from both onerror and
	// onclose does. Each schedule is its own attempt chain.
	DoubleSchedule bool
}

// Validate reports a policy that cannot run, naming the field.
func (p Policy) Validate() error {
	switch p.Kind {
	case Immediate:
		return nil
	case Exponential, FullJitter:
	default:
		return fmt.Errorf("policy %q: must be %s, %s or %s", p.Kind, Immediate, Exponential, FullJitter)
	}
	if p.Base <= 0 || p.Cap < p.Base || p.Cap > maxCap {
		return fmt.Errorf("policy %s: base %v and cap %v: need 0 < base <= cap <= %v", p.Kind, p.Base, p.Cap, maxCap)
	}
	if p.StableAfter < 0 {
		return fmt.Errorf("policy %s: stable-after %v: must be >= 0", p.Kind, p.StableAfter)
	}
	return nil
}

// Delay is the wait before the reconnect with retry counter retry (0 for
// the first reconnect): 0 for Immediate, min(Cap, Base·2^retry) for
// Exponential, and a draw from rng uniform in [0, that) for FullJitter.
func (p Policy) Delay(retry int, rng *rand.Rand) time.Duration {
	if p.Kind == Immediate {
		return 0
	}
	d := p.Base
	for i := 0; i < retry && d < p.Cap; i++ { // at most 63 doublings before d passes any cap
		d *= 2
	}
	d = min(d, p.Cap)
	if p.Kind == FullJitter {
		return time.Duration(rng.Int64N(int64(d)))
	}
	return d
}
