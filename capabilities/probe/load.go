package probe

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// LoadKind is load.kind probe: one raw-socket probe (cmd/probe,
// docs/probes.md), one keep-alive connection, one request, the socket
// watched until the server closes it.
const LoadKind scenarios.LoadKind = record.LoadKindProbe

// Kind is the kind of a raw-socket probe (load.probe.kind).
type Kind string

// The probe kinds (see package probe, the program).
const (
	// Idle: one finished request, then an idle keep-alive socket. The
	// action is timed from the end of the response (P5).
	Idle Kind = Kind(record.ProbeIdle)
	// Inflight: one long request (GET /slow?ms=Ms) in flight; the action
	// is timed from the moment it was written (P6).
	Inflight Kind = Kind(record.ProbeInflight)
)

// MaxWaitLimit bounds load.probe.max_wait.
const MaxWaitLimit = 10 * time.Minute

// Load configures a load of kind probe: the block load.probe.
type Load struct {
	// Kind is idle or inflight (required).
	Kind Kind `yaml:"kind" json:"kind"`
	// Ms is the duration of the probe's GET /slow?ms=N request; nil: 0 for
	// idle, 4000 for inflight. 0..600000.
	Ms *int `yaml:"ms" json:"ms,omitempty"`
	// MaxWait bounds the wait for the server to close the socket, from
	// the end of the response (default 30s, at most 10m).
	MaxWait scenarios.Duration `yaml:"max_wait" json:"max_wait"`
}

// loadKindDef is the probe's registration with package scenarios: its
// block, its check, and how the shared checks treat it (one request, no
// mix, nothing to stagger, bounded by max_wait rather than
// load.duration, GET /slow on the target, compared by load.probe).
var loadKindDef = scenarios.LoadKindDef{
	Block: "probe", NewBlock: func() scenarios.LoadBlock { return new(Load) }, Validate: validate,
	NoMix: true, NoStagger: true, PastDuration: true,
	TargetPaths: func(*scenarios.Spec) []scenarios.PathRef {
		return []scenarios.PathRef{{Field: "load.probe.kind", Path: "/slow"}}
	},
	SetupFields: []string{"load.probe"}, Setup: setup,
}

// setup names the probe's parameters as the setup field load.probe
// ("idle 0 ms, max wait 30s"); nil without a block (the agent's fields).
func setup(l scenarios.LoadSpec) map[string]string {
	p := LoadOf(l)
	if p == nil {
		return nil
	}
	return map[string]string{"load.probe": fmt.Sprintf("%s %d ms, max wait %v", p.Kind, p.RequestMs(), p.MaxWait)}
}

// LoadKind says the block is the probe's (scenarios.LoadBlock).
func (*Load) LoadKind() scenarios.LoadKind { return LoadKind }

// LoadOf returns the load's probe block (load.probe), nil without one.
func LoadOf(l scenarios.LoadSpec) *Load {
	p, _ := l.Block(LoadKind).(*Load)
	return p
}

// RequestMs is the probe request's /slow duration in milliseconds.
func (p *Load) RequestMs() int {
	switch {
	case p.Ms != nil:
		return *p.Ms
	case p.Kind == Inflight:
		return 4000
	}
	return 0
}

// validate checks a probe load: a probe block, no agent-only settings
// the file asked for, a direct talk to replica 0.
func validate(s *scenarios.Spec, loc scenarios.Locator, fail scenarios.FailFunc) {
	l := &s.Load
	p := LoadOf(*l)
	if p == nil {
		fail("load.probe", "", "required for load.kind probe (kind: idle or inflight)")
		return
	}
	switch p.Kind {
	case Idle, Inflight:
	case "":
		fail("load.probe.kind", "", "required: idle or inflight")
	default:
		fail("load.probe.kind", string(p.Kind), "want idle or inflight")
	}
	if p.Ms != nil && (*p.Ms < 0 || *p.Ms > 600000) {
		fail("load.probe.ms", strconv.Itoa(*p.Ms), "must be 0..600000")
	}
	if p.MaxWait <= 0 || p.MaxWait.D() > MaxWaitLimit {
		fail("load.probe.max_wait", p.MaxWait.String(), "must be > 0 and at most 10m")
	}
	for _, f := range scenarios.AgentOnlyFields {
		if loc.Given(f) {
			fail(f, "", "only for load.kind agent (a probe sends one request)")
		}
	}
	if a := s.Action; a.Kind == scenarios.ActionRoll || s.Topology != scenarios.TopologyDirect {
		fail("load.kind", string(l.Kind), "a probe talks to replica 0 directly: topology direct, action signal, stop or none")
	}
	if s.Action.Kind != scenarios.ActionNone && p.MaxWait > 0 && s.Action.At >= p.MaxWait+scenarios.Duration(time.Duration(p.RequestMs())*time.Millisecond) {
		fail("action.at", s.Action.At.String(), fmt.Sprintf("must come while the probe watches its socket (before ms + max_wait = %s)",
			(time.Duration(p.RequestMs())*time.Millisecond+p.MaxWait.D()).String()))
	}
}

// UnmarshalYAML decodes a probe block onto its defaults (max_wait 30s).
func (p *Load) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Load
	*p = Load{MaxWait: scenarios.Seconds(30)}
	return unmarshal((*plain)(p))
}
