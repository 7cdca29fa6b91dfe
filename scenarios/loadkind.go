package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A LoadBlock is a load kind's settings block (load.probe, load.ws, …):
// a capability's own type (the probe's, the ws load's, hostile's, the
// jobs load's: capabilities/probe, capabilities/websockets,
// capabilities/hostile, capabilities/queuejobs). Each says its kind.
type LoadBlock interface {
	// LoadKind is the kind whose block it is.
	LoadKind() LoadKind
}

// LoadKindDef is one load kind as the scenarios know it: its settings
// block, refused for another kind, the check of its settings, and the
// properties the shared checks ask of it instead of naming the kind. Its
// zero value is a kind like the load agent: no block, the mix sent by
// closed- or open-loop clients within load.duration.
type LoadKindDef struct {
	// Block is its settings block's key under load ("ws": load.ws; "":
	// none) and NewBlock a fresh block to decode one into.
	Block    string
	NewBlock func() LoadBlock
	// Validate checks its own settings (nil: none beyond the load
	// section's). loc says which fields the file or --set gave.
	Validate func(s *Spec, loc Locator, fail FailFunc)
	// NoMix says its load sends none of load.mix's requests (a probe's
	// one request, a WebSocket stream): a write in the mix is never sent.
	NoMix bool
	// NoStagger says its load has no closed-loop clients whose first
	// requests load.stagger spreads (StaggerSpan is 0).
	NoStagger bool
	// PastDuration says its load is not bounded by load.duration (a
	// probe watches its socket for its own max_wait): action.at may come
	// at or after it.
	PastDuration bool
	// TargetPaths are the target paths its load requests, each with the
	// field that asks for it, which the target must serve. nil: the load
	// agent's, load.mix's paths and /job for load.job.
	TargetPaths func(s *Spec) []PathRef
	// SetupFields are the setup fields its Setup may name
	// ("load.probe"), compared after the agent's load fields (gate).
	SetupFields []string
	// Setup, when set, names the load's parameters as setup fields, the
	// ones two runs compared side by side must share (gate.SpecSetup), in
	// place of the agent's (load.shape, load.clients, …); a nil map: the
	// agent's are named.
	Setup func(l LoadSpec) map[string]string
	// Work, when set, is the work its load leaves in a replica at the
	// stop, which the shutdown budget audit weighs against the grace
	// period (SpecBudgetInput; the runner prints the audit before a
	// variant's runs, runner.BudgetLine). nil: the kind has no audit.
	Work func(l LoadSpec) ShutdownWork
	// Runtime, when set, is the one target runtime its load runs on (it
	// needs a role only that built-in target has; Validate refuses
	// another), and RuntimeOnly says so after "scenario NAME" where a
	// plan skips the kind's scenarios on another runtime (reproduce):
	// "runs the Go target's queue worker (load.kind jobs), Go only".
	Runtime     Runtime
	RuntimeOnly string
}

// ShutdownWork is the work a load leaves in a replica at the stop, as
// the shutdown budget audit reads it (budget.Input): Steps steps of
// StepMS ms for the longest job (0 steps: no jobs), and HTTPMS, the
// longest HTTP request (0: none).
type ShutdownWork struct {
	Steps, StepMS, HTTPMS int
}

// PathRef is one target path a load requests: Field is the scenario
// field that asks for it, named in the error when the target does not
// declare Path.
type PathRef struct {
	Field, Path string
}

// Locator is what a kind's Validate may ask of the decoded file: whether
// a field was given.
type Locator interface {
	// Given reports whether the file or a --set gave the field at path
	// ("load.clients"), as opposed to a default.
	Given(path string) bool
}

// loadKinds are the load kinds, each registered by its own file or its
// capability's package (RegisterLoadKind): the one place a kind is
// declared for decoding and validation. Nothing reads it in an order but LoadKinds' (sorted), so
// the order of the files' init functions cannot show.
var loadKinds = map[LoadKind]LoadKindDef{}

// RegisterLoadKind declares kind k, from the init function of the file or
// capability package that defines it. It panics, at program start, on a
// kind or block key registered twice or empty, or a block without its
// constructor.
func RegisterLoadKind(k LoadKind, d LoadKindDef) {
	_, taken := loadKinds[k]
	switch {
	case k == "" || taken:
		panic(fmt.Sprintf("scenarios: load kind %q registered twice or empty", k))
	case (d.Block == "") != (d.NewBlock == nil):
		panic(fmt.Sprintf("scenarios: load kind %q: a block key without its constructor, or the reverse", k))
	case d.Block != "" && slices.ContainsFunc(slices.Collect(maps.Values(loadKinds)), func(o LoadKindDef) bool { return o.Block == d.Block }):
		panic(fmt.Sprintf("scenarios: load kind %q: block key %q taken", k, d.Block))
	}
	loadKinds[k] = d
}

// LoadKind is what drives the target during a run.
type LoadKind string

// LoadAgent runs the load agent (cmd/loadagent): many requests, every
// outcome recorded (default).
const LoadAgent LoadKind = "agent"

func init() { RegisterLoadKind(LoadAgent, LoadKindDef{}) }

// AgentOnlyFields are the load agent's request settings, which a kind that
// sends no such requests refuses when the file or --set gave them.
var AgentOnlyFields = []string{"load.mix", "load.job", "load.shape", "load.clients", "load.rate", "load.max_requests", "load.fail_pause", "load.stagger"}

// LoadKinds lists the load kinds, sorted.
func LoadKinds() []LoadKind {
	return slices.Sorted(maps.Keys(loadKinds))
}

// loadBlockKeys are the block keys under load, in LoadKinds' order.
func loadBlockKeys() []string {
	var keys []string
	for _, k := range LoadKinds() {
		if b := loadKinds[k].Block; b != "" {
			keys = append(keys, b)
		}
	}
	return keys
}

// loadBlockOf returns a fresh block for key (load.KEY), or false when
// no kind has that key.
func loadBlockOf(key string) (LoadBlock, bool) {
	for _, d := range loadKinds {
		if d.Block != "" && d.Block == key {
			return d.NewBlock(), true
		}
	}
	return nil, false
}

// validateLoadKind checks load.kind, refuses another kind's block, and
// runs the kind's own check.
func validateLoadKind(s *Spec, loc *locator, fail FailFunc) {
	l := &s.Load
	def, ok := loadKinds[l.Kind]
	if !ok {
		names := make([]string, 0, len(loadKinds))
		for _, k := range LoadKinds() {
			names = append(names, string(k))
		}
		fail("load.kind", string(l.Kind), "want "+strings.Join(names, ", "))
		return
	}
	for _, k := range LoadKinds() { // sorted: the errors in one order
		if k != l.Kind && l.blocks[k] != nil {
			fail("load."+loadKinds[k].Block, "", "only for load.kind "+string(k))
		}
	}
	if def.Validate != nil {
		def.Validate(s, loc, fail)
	}
}

// LoadKindOf returns the registration of kind k (false: none; the zero
// LoadKindDef has the load agent's properties).
func LoadKindOf(k LoadKind) (LoadKindDef, bool) {
	d, ok := loadKinds[k]
	return d, ok
}

// kindDef is the registration of the load's kind (the zero LoadKindDef
// for a kind none registered).
func (l LoadSpec) kindDef() LoadKindDef { return loadKinds[l.Kind] }

// SendsMix reports whether the load sends load.mix's requests: every
// kind but those that declare NoMix (the probe, ws).
func (l LoadSpec) SendsMix() bool { return !l.kindDef().NoMix }

// Block returns the load's settings block of kind k (nil without one): a
// capability's accessor reads its own block with it.
func (l LoadSpec) Block(k LoadKind) LoadBlock { return l.blocks[k] }
