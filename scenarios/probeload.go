package scenarios

import (
	"fmt"
	"strconv"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// LoadKind is what drives the target during a run.
type LoadKind string

// The load kinds.
const (
	// LoadAgent runs the load agent (cmd/loadagent): many requests,
	// every outcome recorded (default).
	LoadAgent LoadKind = "agent"
	// LoadProbe runs one raw-socket probe (cmd/probe, docs/probes.md):
	// one keep-alive connection, one request, the socket watched until the
	// server closes it.
	LoadProbe LoadKind = record.LoadKindProbe
)

// ProbeKind is the kind of a raw-socket probe.
type ProbeKind string

// The probe kinds (see package probe).
const (
	// ProbeIdle: one finished request, then an idle keep-alive socket. The
	// action is timed from the end of the response (P5).
	ProbeIdle ProbeKind = ProbeKind(record.ProbeIdle)
	// ProbeInflight: one long request (GET /slow?ms=Ms) in flight; the
	// action is timed from the moment it was written (P6).
	ProbeInflight ProbeKind = ProbeKind(record.ProbeInflight)
)

// MaxProbeWait bounds load.probe.max_wait.
const MaxProbeWait = 10 * time.Minute

// ProbeLoad configures a load of kind probe.
type ProbeLoad struct {
	// Kind is idle or inflight (required).
	Kind ProbeKind `yaml:"kind" json:"kind"`
	// Ms is the duration of the probe's GET /slow?ms=N request; nil: 0 for
	// idle, 4000 for inflight. 0..600000.
	Ms *int `yaml:"ms" json:"ms,omitempty"`
	// MaxWait bounds the wait for the server to close the socket, from
	// the end of the response (default 30s, at most 10m).
	MaxWait Duration `yaml:"max_wait" json:"max_wait"`
}

func init() {
	registerLoadKind(LoadProbe, loadKindDef{block: "probe", newBlock: func() LoadBlock { return new(ProbeLoad) }, validate: validateProbe})
}

func (*ProbeLoad) loadKind() LoadKind { return LoadProbe }

// Probe returns the load's probe block (load.probe), nil without one.
func (l LoadSpec) Probe() *ProbeLoad { return loadBlock[*ProbeLoad](l, LoadProbe) }

// RequestMs is the probe request's /slow duration in milliseconds.
func (p *ProbeLoad) RequestMs() int {
	switch {
	case p.Ms != nil:
		return *p.Ms
	case p.Kind == ProbeInflight:
		return 4000
	}
	return 0
}

// validateProbe checks a probe load: a probe block, no agent-only
// settings the file asked for, a direct talk to replica 0.
func validateProbe(s *Spec, loc *locator, fail failFunc) {
	l := &s.Load
	p := l.Probe()
	if p == nil {
		fail("load.probe", "", "required for load.kind probe (kind: idle or inflight)")
		return
	}
	switch p.Kind {
	case ProbeIdle, ProbeInflight:
	case "":
		fail("load.probe.kind", "", "required: idle or inflight")
	default:
		fail("load.probe.kind", string(p.Kind), "want idle or inflight")
	}
	if p.Ms != nil && (*p.Ms < 0 || *p.Ms > 600000) {
		fail("load.probe.ms", strconv.Itoa(*p.Ms), "must be 0..600000")
	}
	if p.MaxWait <= 0 || p.MaxWait.D() > MaxProbeWait {
		fail("load.probe.max_wait", p.MaxWait.String(), "must be > 0 and at most 10m")
	}
	for _, f := range agentOnlyFields {
		if loc.given(f) {
			fail(f, "", "only for load.kind agent (a probe sends one request)")
		}
	}
	if a := s.Action; a.Kind == ActionRoll || s.Topology != TopologyDirect {
		fail("load.kind", string(l.Kind), "a probe talks to replica 0 directly: topology direct, action signal, stop or none")
	}
	if s.Action.Kind != ActionNone && p.MaxWait > 0 && s.Action.At >= p.MaxWait+Duration(time.Duration(p.RequestMs())*time.Millisecond) {
		fail("action.at", s.Action.At.String(), fmt.Sprintf("must come while the probe watches its socket (before ms + max_wait = %s)",
			(time.Duration(p.RequestMs())*time.Millisecond+p.MaxWait.D()).String()))
	}
}

// UnmarshalYAML decodes a probe block onto its defaults (max_wait 30s).
func (p *ProbeLoad) UnmarshalYAML(unmarshal func(any) error) error {
	type plain ProbeLoad
	*p = ProbeLoad{MaxWait: Seconds(30)}
	return unmarshal((*plain)(p))
}
