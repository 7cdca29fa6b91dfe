package hostile

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// LoadKind is load.kind hostile: the load agent as hostile clients
// (loadgen.RunHostile, `loadagent -hostile KIND`): slow clients that
// trickle a request's headers or body at a set byte rate, or clients that
// abort requests mid-body. Every attempt is one request record with
// hostile set (kept out of latency percentiles) and the agent's summary
// accounts for them.
const LoadKind scenarios.LoadKind = record.LoadKindHostile

// The hostile client kinds of load.hostile.kind; they are record's
// Hostile* values (TestKindsAreRecordKinds).
const (
	// SlowHeaders trickles the request line and headers (and any body)
	// at load.hostile.bytes_per_s.
	SlowHeaders = record.HostileSlowHeaders
	// SlowBody sends the headers at once and trickles the body.
	SlowBody = record.HostileSlowBody
	// Abort sends the headers and abort_after body bytes, waits hold,
	// then closes the connection (class aborted).
	Abort = record.HostileAbort
)

// Kinds lists the hostile client kinds.
var Kinds = []string{SlowHeaders, SlowBody, Abort}

// Bounds of a hostile load.
const (
	// MaxClients bounds load.hostile.clients.
	MaxClients = 10000
	// MaxAttempts bounds load.hostile.max_attempts.
	MaxAttempts = 1000000
	// MaxBody bounds load.hostile.body_bytes.
	MaxBody = 1 << 20
)

// Load configures a load of kind hostile (loadgen.HostileLoad): the block
// load.hostile. load.duration is how long attempts start, load.timeout
// bounds each one.
type Load struct {
	// Kind is slow_headers, slow_body or abort (required).
	Kind string `yaml:"kind" json:"kind"`
	// Clients bounds the attempts in flight at once, 1..10000 (default 1).
	Clients int `yaml:"clients" json:"clients"`
	// AttemptsPerS, when > 0, starts an attempt every 1/AttemptsPerS s
	// (open loop: a slot that finds every client busy is not_sent);
	// 0 (default): each client starts its next attempt when its last ends.
	AttemptsPerS float64 `yaml:"attempts_per_s" json:"attempts_per_s,omitempty"`
	// BytesPerS is the trickle rate of the slow kinds, > 0 (default 1);
	// not for abort.
	BytesPerS float64 `yaml:"bytes_per_s" json:"bytes_per_s,omitempty"`
	// Method and Path are the request's (default POST /slow?ms=0).
	Method string `yaml:"method" json:"method"`
	Path   string `yaml:"path" json:"path"`
	// BodyBytes is the body's Content-Length, 0..1048576 (default 1000 for
	// slow_body and abort, 0 for slow_headers).
	BodyBytes *int `yaml:"body_bytes" json:"body_bytes,omitempty"`
	// AbortAfter is how many body bytes an abort sends before it closes,
	// less than body_bytes (default half of it); abort only.
	AbortAfter *int `yaml:"abort_after" json:"abort_after,omitempty"`
	// Hold is how long an abort waits after its last byte before it
	// closes, 0..1m (default 0); abort only.
	Hold scenarios.Duration `yaml:"hold" json:"hold,omitempty"`
	// Reset closes an aborted connection with a TCP RST instead of a FIN;
	// abort only.
	Reset bool `yaml:"reset" json:"reset,omitempty"`
	// MaxAttempts bounds the attempts, not_sent slots included, 1..1000000
	// (default 1000).
	MaxAttempts int `yaml:"max_attempts" json:"max_attempts"`
}

// loadKindDef is the hostile load's registration with package scenarios:
// its block, its check, and the one property the shared checks ask of it,
// the path its clients request (load.hostile.path). It stays a closed- or
// open-loop load within load.duration, like the agent's.
var loadKindDef = scenarios.LoadKindDef{
	Block: "hostile", NewBlock: func() scenarios.LoadBlock { return new(Load) }, Validate: validate,
	TargetPaths: targetPaths,
}

// LoadKind says the block is the hostile load's (scenarios.LoadBlock).
func (*Load) LoadKind() scenarios.LoadKind { return LoadKind }

// LoadOf returns the load's hostile block (load.hostile), nil without one.
func LoadOf(l scenarios.LoadSpec) *Load {
	h, _ := l.Block(LoadKind).(*Load)
	return h
}

// UnmarshalYAML decodes a hostile block onto its defaults.
func (h *Load) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Load
	*h = Load{Clients: 1, Method: "POST", Path: "/slow?ms=0", MaxAttempts: 1000}
	return unmarshal((*plain)(h))
}

// Body is the body size an attempt sends: body_bytes, else 1000 for
// slow_body and abort, 0 for slow_headers.
func (h *Load) Body() int {
	switch {
	case h.BodyBytes != nil:
		return *h.BodyBytes
	case h.Kind == SlowHeaders:
		return 0
	}
	return 1000
}

// Rate is the trickle rate in bytes per second (bytes_per_s, default 1).
func (h *Load) Rate() float64 {
	if h.BytesPerS == 0 {
		return 1
	}
	return h.BytesPerS
}

// AbortBytes is how many body bytes an abort sends (abort_after, default
// half the body).
func (h *Load) AbortBytes() int {
	if h.AbortAfter != nil {
		return *h.AbortAfter
	}
	return h.Body() / 2
}

// targetPaths is the hostile client's path, load.hostile.path, when it is
// a valid one (validate names a bad one).
func targetPaths(s *scenarios.Spec) []scenarios.PathRef {
	if h := LoadOf(s.Load); h != nil && scenarios.ValidPath(h.Path) {
		return []scenarios.PathRef{{Field: "load.hostile.path", Path: h.Path}}
	}
	return []scenarios.PathRef{}
}

// validate checks a hostile load: a hostile block with sound values, and
// none of the agent's request settings.
func validate(s *scenarios.Spec, loc scenarios.Locator, fail scenarios.FailFunc) {
	h := LoadOf(s.Load)
	if h == nil {
		fail("load.hostile", "", "required for load.kind hostile (kind: "+strings.Join(Kinds, ", ")+")")
		return
	}
	itoa := strconv.Itoa
	switch h.Kind {
	case SlowHeaders, SlowBody, Abort:
	case "":
		fail("load.hostile.kind", "", "required: "+strings.Join(Kinds, ", "))
	default:
		fail("load.hostile.kind", h.Kind, "want "+strings.Join(Kinds, ", "))
	}
	if h.Clients < 1 || h.Clients > MaxClients {
		fail("load.hostile.clients", itoa(h.Clients), fmt.Sprintf("must be 1..%d", MaxClients))
	}
	if h.AttemptsPerS < 0 || h.AttemptsPerS > 100000 {
		fail("load.hostile.attempts_per_s", fmtFloat(h.AttemptsPerS), "must be 0..100000 (0: closed loop)")
	}
	if h.MaxAttempts < 1 || h.MaxAttempts > MaxAttempts {
		fail("load.hostile.max_attempts", itoa(h.MaxAttempts), fmt.Sprintf("must be 1..%d", MaxAttempts))
	}
	if !strings.HasPrefix(h.Path, "/") || strings.ContainsAny(h.Path, " \t\r\n") {
		fail("load.hostile.path", h.Path, "want a request target starting with / and no white space")
	}
	if h.Method == "" || strings.ContainsAny(h.Method, " \t\r\n") {
		fail("load.hostile.method", h.Method, "want an HTTP method (default POST)")
	}
	if b := h.Body(); b < 0 || b > MaxBody {
		fail("load.hostile.body_bytes", itoa(b), fmt.Sprintf("must be 0..%d", MaxBody))
	}
	validateKind(h, loc, fail)
	for _, f := range scenarios.AgentOnlyFields {
		if loc.Given(f) {
			fail(f, "", "only for load.kind agent (a hostile load is configured in load.hostile)")
		}
	}
}

// validateKind checks the settings that belong to some kinds only.
func validateKind(h *Load, loc scenarios.Locator, fail scenarios.FailFunc) {
	if h.Kind == Abort {
		if loc.Given("load.hostile.bytes_per_s") {
			fail("load.hostile.bytes_per_s", fmtFloat(h.BytesPerS), "only for the slow kinds (an abort sends at once)")
		}
		if a := h.AbortBytes(); a < 0 || a >= h.Body() {
			fail("load.hostile.abort_after", strconv.Itoa(a), fmt.Sprintf("must be 0..%d (less than body_bytes %d)", h.Body()-1, h.Body()))
		}
		if h.Hold < 0 || h.Hold.D() > time.Minute {
			fail("load.hostile.hold", h.Hold.String(), "must be 0..1m")
		}
		return
	}
	if h.BytesPerS < 0 || h.BytesPerS > 1e9 {
		fail("load.hostile.bytes_per_s", fmtFloat(h.BytesPerS), "must be > 0 bytes per second (default 1)")
	}
	if h.Kind == SlowBody && h.Body() == 0 {
		fail("load.hostile.body_bytes", "0", "slow_body needs a body")
	}
	for _, f := range []string{"load.hostile.abort_after", "load.hostile.hold", "load.hostile.reset"} {
		if loc.Given(f) {
			fail(f, "", "only for kind abort")
		}
	}
}

// fmtFloat writes f as a field's value in an error.
func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
