package scenarios

import (
	"slices"
	"strings"
)

// loadKindDef is one load kind as the scenarios know it: its settings
// block, refused for another kind, and the check of its settings.
type loadKindDef struct {
	// block is its settings block's path ("load.ws"; "": none) and set
	// reports whether a spec's load section holds it.
	block string
	set   func(l *LoadSpec) bool
	// validate checks its own settings (nil: none beyond the load
	// section's).
	validate func(s *Spec, loc *locator, fail failFunc)
}

// loadKinds are the load kinds: the one place a kind is declared for
// validation. A new kind is one entry here, its constant, and its block
// in LoadSpec.
var loadKinds = map[LoadKind]loadKindDef{
	LoadAgent:   {},
	LoadProbe:   {block: "load.probe", set: func(l *LoadSpec) bool { return l.Probe != nil }, validate: validateProbe},
	LoadWS:      {block: "load.ws", set: func(l *LoadSpec) bool { return l.WS != nil }, validate: validateWS},
	LoadHostile: {block: "load.hostile", set: func(l *LoadSpec) bool { return l.Hostile != nil }, validate: validateHostile},
	LoadJobs:    {block: "load.jobs", set: func(l *LoadSpec) bool { return l.Jobs != nil }, validate: validateJobs},
}

// agentOnlyFields are the load agent's request settings, refused (when the
// file or --set gave them) for a kind that sends no such requests.
var agentOnlyFields = []string{"load.mix", "load.job", "load.shape", "load.clients", "load.rate", "load.max_requests", "load.fail_pause", "load.stagger"}

// LoadKinds lists the load kinds, sorted.
func LoadKinds() []LoadKind {
	kinds := make([]LoadKind, 0, len(loadKinds))
	for k := range loadKinds {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// validateLoadKind checks load.kind, refuses another kind's block, and
// runs the kind's own check.
func validateLoadKind(s *Spec, loc *locator, fail failFunc) {
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
		if b := loadKinds[k]; k != l.Kind && b.set != nil && b.set(l) {
			fail(b.block, "", "only for load.kind "+string(k))
		}
	}
	if def.validate != nil {
		def.validate(s, loc, fail)
	}
}
