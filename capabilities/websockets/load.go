package websockets

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// LoadKind is load.kind ws: the WebSocket load agent (cmd/wsagent,
// loadgen/ws), Clients long-lived connections on the target's event
// stream, each reconnecting by a declared policy, every attempt and close
// recorded.
const LoadKind scenarios.LoadKind = record.LoadKindWS

// The reconnect policies of load.ws.policy.kind; they are loadgen/ws's
// PolicyKind values (TestPolicyKindsAreDriverKinds).
const (
	// Immediate reconnects at once: the reconnect storm.
	Immediate = "immediate"
	// Exponential waits min(cap, base·2^retry).
	Exponential = "exponential"
	// FullJitter waits uniformly in [0, min(cap, base·2^retry)).
	FullJitter = "full-jitter"
)

// PolicyKinds lists the reconnect policies.
var PolicyKinds = []string{Immediate, Exponential, FullJitter}

// Bounds of a WebSocket load.
const (
	// MaxClients bounds load.ws.clients (one agent holds them all).
	MaxClients = 100000
	// MaxAttempts bounds load.ws.max_attempts (per client).
	MaxAttempts = 100000
	// MaxCap bounds load.ws.policy.cap.
	MaxCap = time.Hour
)

// DefaultPath is the stream both built-in targets serve (the target
// protocol's default paths list it: scenarios.DefaultProtocol).
const DefaultPath = "/events"

// Load configures a load of kind ws (loadgen/ws.Config): the block
// load.ws.
type Load struct {
	// Clients is the number of long-lived clients, 1..100000 (default 100).
	Clients int `yaml:"clients" json:"clients"`
	// Path is the stream's path on the target (default /events).
	Path string `yaml:"path" json:"path"`
	// Policy is how each client reconnects.
	Policy Policy `yaml:"policy" json:"policy"`
	// Resume makes a reconnect ask for what followed the client's last
	// sequence number (?after=SEQ minus ResumeOverlap).
	Resume bool `yaml:"resume" json:"resume,omitempty"`
	// ResumeOverlap is how many already delivered events a resume asks
	// for again (they come back as duplicates), >= 0.
	ResumeOverlap int64 `yaml:"resume_overlap" json:"resume_overlap,omitempty"`
	// DedupeSize is each client's event-id cache size; 0 disables
	// deduplication (default 1024).
	DedupeSize int `yaml:"dedupe_size" json:"dedupe_size"`
	// MaxAttempts bounds each client's connection attempts (default 1000).
	MaxAttempts int `yaml:"max_attempts" json:"max_attempts"`
	// Ramp spreads the clients' first attempts over this span, in
	// [0, load.duration) (default 1s, capped at a quarter of the duration).
	// It is part of the load: action.at counts from the first attempt, so
	// an action inside the ramp meets handshakes still arriving.
	Ramp *scenarios.Duration `yaml:"ramp" json:"ramp,omitempty"`
	// HandshakeTimeout bounds each handshake (default 5s).
	HandshakeTimeout scenarios.Duration `yaml:"handshake_timeout" json:"handshake_timeout"`
	// CloseTimeout bounds a stopping client's closing handshake (default 2s).
	CloseTimeout scenarios.Duration `yaml:"close_timeout" json:"close_timeout"`
	// RawPeers is how many of the clients are raw peers that never answer
	// a close frame (W3's deadline), 0..clients; each connects once.
	RawPeers int `yaml:"raw_peers" json:"raw_peers,omitempty"`
	// Seed seeds the clients' random delays; 0: derived from the run.
	Seed uint64 `yaml:"seed" json:"seed,omitempty"`
}

// loadKindDef is the ws load's registration with package scenarios: its
// block, its check, and how the shared checks treat it (no mix, no
// closed-loop clients to stagger, its stream's path on the target).
var loadKindDef = scenarios.LoadKindDef{
	Block: "ws", NewBlock: func() scenarios.LoadBlock { return new(Load) }, Validate: validate,
	NoMix: true, NoStagger: true, TargetPaths: targetPaths,
}

// LoadKind says the block is the ws load's (scenarios.LoadBlock).
func (*Load) LoadKind() scenarios.LoadKind { return LoadKind }

// LoadOf returns the load's ws block (load.ws), nil without one.
func LoadOf(l scenarios.LoadSpec) *Load {
	w, _ := l.Block(LoadKind).(*Load)
	return w
}

// Policy is load.ws.policy.
type Policy struct {
	// Kind is immediate, exponential or full-jitter (default full-jitter).
	Kind string `yaml:"kind" json:"kind"`
	// Base and Cap bound the exponential and full-jitter delays
	// (default 100ms and 3s).
	Base scenarios.Duration `yaml:"base" json:"base"`
	Cap  scenarios.Duration `yaml:"cap" json:"cap"`
	// StableAfter is how long a connection must stay open before the
	// retry counter resets; 0 resets it on every open.
	StableAfter scenarios.Duration `yaml:"stable_after" json:"stable_after,omitempty"`
	// DoubleSchedule is the double-schedule bug: an error end reschedules
	// from both the error and the close handler.
	DoubleSchedule bool `yaml:"double_schedule" json:"double_schedule,omitempty"`
}

// UnmarshalYAML decodes a ws block onto its defaults.
func (w *Load) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Load
	*w = DefaultLoad()
	return unmarshal((*plain)(w))
}

// DefaultLoad is a ws block with every default filled.
func DefaultLoad() Load {
	return Load{
		Clients: 100, Path: DefaultPath, DedupeSize: 1024, MaxAttempts: 1000,
		Policy:           Policy{Kind: FullJitter, Base: scenarios.Duration(100 * time.Millisecond), Cap: scenarios.Seconds(3)},
		HandshakeTimeout: scenarios.Seconds(5), CloseTimeout: scenarios.Seconds(2),
	}
}

// RampSpan is the span of the clients' first attempts: load.ws.ramp when
// set, else 1s but at most a quarter of the load's duration.
func (w *Load) RampSpan(duration time.Duration) time.Duration {
	if w.Ramp != nil {
		return w.Ramp.D()
	}
	return min(time.Second, duration/4)
}

// targetPaths is the stream's path, load.ws.path (none without a block).
func targetPaths(s *scenarios.Spec) []scenarios.PathRef {
	if w := LoadOf(s.Load); w != nil {
		return []scenarios.PathRef{{Field: "load.ws.path", Path: w.Path}}
	}
	return []scenarios.PathRef{}
}

// validate checks a ws load: a ws block with sound values, a stream path
// the target serves, and an action the stream can take.
func validate(s *scenarios.Spec, loc scenarios.Locator, fail scenarios.FailFunc) {
	w := LoadOf(s.Load)
	if w == nil {
		fail("load.ws", "", "required for load.kind ws (clients, policy, ...)")
		return
	}
	itoa := strconv.Itoa
	if w.Clients < 1 || w.Clients > MaxClients {
		fail("load.ws.clients", itoa(w.Clients), fmt.Sprintf("must be 1..%d", MaxClients))
	}
	if !strings.HasPrefix(w.Path, "/") || strings.ContainsAny(w.Path, "?# \t") {
		fail("load.ws.path", w.Path, "want a path starting with / and no query")
	}
	if w.RawPeers < 0 || w.RawPeers > w.Clients {
		fail("load.ws.raw_peers", itoa(w.RawPeers), "must be 0..load.ws.clients")
	}
	validatePolicy(w.Policy, fail)
	if w.ResumeOverlap < 0 {
		fail("load.ws.resume_overlap", strconv.FormatInt(w.ResumeOverlap, 10), "must be >= 0")
	} else if w.ResumeOverlap > 0 && !w.Resume {
		fail("load.ws.resume_overlap", strconv.FormatInt(w.ResumeOverlap, 10), "only with resume: true")
	}
	if w.DedupeSize < 0 || w.DedupeSize > 1<<20 {
		fail("load.ws.dedupe_size", itoa(w.DedupeSize), "must be 0..1048576")
	}
	if w.MaxAttempts < 1 || w.MaxAttempts > MaxAttempts {
		fail("load.ws.max_attempts", itoa(w.MaxAttempts), fmt.Sprintf("must be 1..%d", MaxAttempts))
	}
	if r := w.Ramp; r != nil && (*r < 0 || *r >= s.Load.Duration && s.Load.Duration > 0) {
		fail("load.ws.ramp", r.String(), "must be in [0, load.duration)")
	}
	for _, d := range []struct {
		path string
		v    scenarios.Duration
	}{{"load.ws.handshake_timeout", w.HandshakeTimeout}, {"load.ws.close_timeout", w.CloseTimeout}} {
		if d.v <= 0 || d.v.D() > time.Minute {
			fail(d.path, d.v.String(), "must be > 0 and at most 1m")
		}
	}
	for _, f := range scenarios.AgentOnlyFields {
		if loc.Given(f) {
			fail(f, "", "only for load.kind agent (a ws load holds load.ws.clients connections)")
		}
	}
}

// validatePolicy checks load.ws.policy.
func validatePolicy(p Policy, fail scenarios.FailFunc) {
	switch p.Kind {
	case Immediate:
		return
	case Exponential, FullJitter:
	default:
		fail("load.ws.policy.kind", p.Kind, "want "+strings.Join(PolicyKinds, ", "))
		return
	}
	if p.Base <= 0 {
		fail("load.ws.policy.base", p.Base.String(), "must be > 0")
	}
	if p.Cap < p.Base || p.Cap.D() > MaxCap {
		fail("load.ws.policy.cap", p.Cap.String(), "must be >= base and at most 1h")
	}
	if p.StableAfter < 0 {
		fail("load.ws.policy.stable_after", p.StableAfter.String(), "must be >= 0")
	}
}
