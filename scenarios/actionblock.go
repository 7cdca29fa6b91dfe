package scenarios

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// An ActionBlock is an action kind's settings block (action.rollout,
// action.terminate): *Rollout or *Terminate. Each says its kind.
type ActionBlock interface {
	actionKind() ActionKind
}

// actionBlockDef is the settings block of one action kind: its key under
// action, a fresh block to decode one into, and what the kind does with
// it. The block is refused under another kind; validate runs only under
// its own.
type actionBlockDef struct {
	key      string
	newBlock func() ActionBlock
	// normalize gives a spec its block's defaults and canonical
	// spellings (nil: none); validate checks the block under its kind.
	normalize func(s *Spec)
	validate  func(s *Spec, fail FailFunc)
}

// actionBlocks are the action kinds' blocks, each registered by its
// kind's own file (registerActionBlock); read in sorted kind order only.
var actionBlocks = map[ActionKind]actionBlockDef{}

// registerActionBlock declares kind k's settings block. It panics, at
// program start, on a kind or key given twice or empty, or a block
// without its constructor or check.
func registerActionBlock(k ActionKind, d actionBlockDef) {
	_, taken := actionBlocks[k]
	switch {
	case k == "" || taken || d.key == "":
		panic(fmt.Sprintf("scenarios: action block of kind %q registered twice or empty", k))
	case d.newBlock == nil || d.validate == nil:
		panic(fmt.Sprintf("scenarios: action block of kind %q: no constructor or no check", k))
	case slices.ContainsFunc(slices.Collect(maps.Values(actionBlocks)), func(o actionBlockDef) bool { return o.key == d.key }):
		panic(fmt.Sprintf("scenarios: action block of kind %q: key %q taken", k, d.key))
	}
	actionBlocks[k] = d
}

// actionBlockKinds lists the kinds with a block, sorted.
func actionBlockKinds() []ActionKind { return slices.Sorted(maps.Keys(actionBlocks)) }

// actionBlockKeys are the block keys under action, in sorted kind order.
func actionBlockKeys() []string {
	var keys []string
	for _, k := range actionBlockKinds() {
		keys = append(keys, actionBlocks[k].key)
	}
	return keys
}

// actionBlockOf returns a fresh block for key (action.KEY), or false.
func actionBlockOf(key string) (ActionBlock, bool) {
	for _, d := range actionBlocks {
		if d.key == key {
			return d.newBlock(), true
		}
	}
	return nil, false
}

// normalizeActionBlocks runs each kind's normalize, in sorted kind order.
func (s *Spec) normalizeActionBlocks() {
	for _, k := range actionBlockKinds() {
		if n := actionBlocks[k].normalize; n != nil {
			n(s)
		}
	}
}

// validateActionBlocks refuses a block under another kind than its own
// and checks the one of the spec's kind.
func validateActionBlocks(s *Spec, fail FailFunc) {
	for _, k := range actionBlockKinds() {
		d := actionBlocks[k]
		switch {
		case s.Action.blocks[k] == nil:
		case s.Action.Kind != k:
			fail("action."+d.key, "", "only for kind "+string(k))
		default:
			d.validate(s, fail)
		}
	}
}

// SetBlock gives the action the settings block b of b's kind, replacing
// one it had; a nil pointer removes it.
func (a *Action) SetBlock(b ActionBlock) { a.blocks = withBlock(a.blocks, b.actionKind(), b) }

// MarshalJSON writes the action's fields with each block it holds as the
// key action.KEY after action.roll (a valid spec holds its kind's only).
func (a Action) MarshalJSON() ([]byte, error) {
	type plain Action // its fields, without this method
	return marshalWithBlocks(plain(a), a.blocks, func(k ActionKind) string { return actionBlocks[k].key }, blockHosts[actionType])
}

// UnmarshalJSON reads what MarshalJSON writes: the fields onto a's
// current values, each block key into a fresh block.
func (a *Action) UnmarshalJSON(b []byte) error {
	type plain Action
	p := plain(*a)
	err := json.Unmarshal(b, &p)
	*a = Action(p)
	if err != nil {
		return err
	}
	return unmarshalBlocks(b, blockHosts[actionType], "action", func(blk any) { a.SetBlock(blk.(ActionBlock)) })
}
