package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A LoadBlock is a load kind's settings block (load.probe, load.ws, …):
// *ProbeLoad, *WSLoad, *HostileLoad or *JobsLoad. Each says its kind.
type LoadBlock interface {
	loadKind() LoadKind
}

// loadKindDef is one load kind as the scenarios know it: its settings
// block, refused for another kind, and the check of its settings.
type loadKindDef struct {
	// block is its settings block's key under load ("ws": load.ws; "":
	// none) and newBlock a fresh block to decode one into.
	block    string
	newBlock func() LoadBlock
	// validate checks its own settings (nil: none beyond the load
	// section's).
	validate func(s *Spec, loc *locator, fail failFunc)
}

// loadKinds are the load kinds, each registered by its own file
// (registerLoadKind): the one place a kind is declared for decoding and
// validation. Nothing reads it in an order but LoadKinds' (sorted), so
// the order of the files' init functions cannot show.
var loadKinds = map[LoadKind]loadKindDef{}

// registerLoadKind declares kind k. It panics, at program start, on a
// kind or block key registered twice or empty, or a block without its
// constructor.
func registerLoadKind(k LoadKind, d loadKindDef) {
	_, taken := loadKinds[k]
	switch {
	case k == "" || taken:
		panic(fmt.Sprintf("scenarios: load kind %q registered twice or empty", k))
	case (d.block == "") != (d.newBlock == nil):
		panic(fmt.Sprintf("scenarios: load kind %q: a block key without its constructor, or the reverse", k))
	case d.block != "" && slices.ContainsFunc(slices.Collect(maps.Values(loadKinds)), func(o loadKindDef) bool { return o.block == d.block }):
		panic(fmt.Sprintf("scenarios: load kind %q: block key %q taken", k, d.block))
	}
	loadKinds[k] = d
}

func init() { registerLoadKind(LoadAgent, loadKindDef{}) }

// agentOnlyFields are the load agent's request settings, refused (when the
// file or --set gave them) for a kind that sends no such requests.
var agentOnlyFields = []string{"load.mix", "load.job", "load.shape", "load.clients", "load.rate", "load.max_requests", "load.fail_pause", "load.stagger"}

// LoadKinds lists the load kinds, sorted.
func LoadKinds() []LoadKind {
	return slices.Sorted(maps.Keys(loadKinds))
}

// loadBlockKeys are the block keys under load, in LoadKinds' order.
func loadBlockKeys() []string {
	var keys []string
	for _, k := range LoadKinds() {
		if b := loadKinds[k].block; b != "" {
			keys = append(keys, b)
		}
	}
	return keys
}

// loadBlockOf returns a fresh block for key (load.KEY), or false when
// no kind has that key.
func loadBlockOf(key string) (LoadBlock, bool) {
	for _, d := range loadKinds {
		if d.block != "" && d.block == key {
			return d.newBlock(), true
		}
	}
	return nil, false
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
		if k != l.Kind && l.blocks[k] != nil {
			fail("load."+loadKinds[k].block, "", "only for load.kind "+string(k))
		}
	}
	if def.validate != nil {
		def.validate(s, loc, fail)
	}
}
