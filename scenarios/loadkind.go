package scenarios

import (
	"slices"
	"strings"
)

// loadKinds maps each load kind to the check of its own settings (nil:
// none beyond the load section's). A new kind is one entry here, its
// constant, and its block in LoadSpec.
var loadKinds = map[LoadKind]func(s *Spec, loc *locator, fail failFunc){
	LoadAgent:   nil,
	LoadProbe:   validateProbe,
	LoadWS:      validateWS,
	LoadHostile: validateHostile,
	LoadJobs:    validateJobs,
}

// kindBlocks are the load blocks that belong to one kind each: given for
// another kind, they are refused.
var kindBlocks = []struct {
	field string
	kind  LoadKind
	set   func(l *LoadSpec) bool
}{
	{"load.probe", LoadProbe, func(l *LoadSpec) bool { return l.Probe != nil }},
	{"load.ws", LoadWS, func(l *LoadSpec) bool { return l.WS != nil }},
	{"load.hostile", LoadHostile, func(l *LoadSpec) bool { return l.Hostile != nil }},
	{"load.jobs", LoadJobs, func(l *LoadSpec) bool { return l.Jobs != nil }},
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
	check, ok := loadKinds[l.Kind]
	if !ok {
		names := make([]string, 0, len(loadKinds))
		for _, k := range LoadKinds() {
			names = append(names, string(k))
		}
		fail("load.kind", string(l.Kind), "want "+strings.Join(names, ", "))
		return
	}
	for _, b := range kindBlocks {
		if b.kind != l.Kind && b.set(l) {
			fail(b.field, "", "only for load.kind "+string(b.kind))
		}
	}
	if check != nil {
		check(s, loc, fail)
	}
}
