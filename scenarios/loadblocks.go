package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
)

// A load kind's settings block is not a field of LoadSpec: the kind's file
// registers its key and type (registerLoadKind), the decoder and the
// schema check find it there, and the kind reads it back through its own
// accessor (l.WS(), l.Jobs(), …). In YAML and JSON each block is the key
// load.KEY, as if it were a field after load.kind.

// loadBlock returns the block of kind k, typed, or nil without one.
func loadBlock[T LoadBlock](l LoadSpec, k LoadKind) T {
	b, _ := l.blocks[k].(T)
	return b
}

// SetBlock gives the load the settings block b of b's kind, replacing one
// it had; a nil pointer removes it. The load's copies keep theirs (the
// blocks are copied on write), as they would a pointer field's.
func (l *LoadSpec) SetBlock(b LoadBlock) {
	blocks := maps.Clone(l.blocks)
	if blocks == nil {
		blocks = map[LoadKind]LoadBlock{}
	}
	k := b.loadKind()
	if isNilBlock(b) {
		delete(blocks, k)
	} else {
		blocks[k] = b
	}
	l.blocks = blocks
}

// isNilBlock reports whether b is nil or a nil pointer of a block type.
func isNilBlock(b LoadBlock) bool {
	v := reflect.ValueOf(b)
	return !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil()
}

// MarshalJSON writes the load's fields, then each block it holds as the
// key load.KEY, in LoadKinds' order (a valid spec holds one at most, the
// kind's own).
func (l LoadSpec) MarshalJSON() ([]byte, error) {
	type plain LoadSpec // its fields, without this method
	b, err := json.Marshal(plain(l))
	if err != nil || len(l.blocks) == 0 {
		return b, err
	}
	out := bytes.TrimSuffix(b, []byte("}"))
	for _, k := range LoadKinds() {
		blk, ok := l.blocks[k]
		if !ok {
			continue
		}
		v, err := json.Marshal(blk)
		if err != nil {
			return nil, err
		}
		key, _ := json.Marshal(loadKinds[k].block)
		out = append(append(append(append(out, ','), key...), ':'), v...)
	}
	return append(out, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes: the fields onto l's
// current values, and each block key of a registered kind into a fresh
// block (null: none).
func (l *LoadSpec) UnmarshalJSON(b []byte) error {
	type plain LoadSpec
	p := plain(*l)
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	*l = LoadSpec(p)
	for _, k := range LoadKinds() {
		raw, ok := keys[loadKinds[k].block]
		if loadKinds[k].block == "" || !ok || string(raw) == "null" {
			continue
		}
		blk := loadKinds[k].newBlock()
		if err := json.Unmarshal(raw, blk); err != nil {
			return fmt.Errorf("load.%s: %w", loadKinds[k].block, err)
		}
		l.SetBlock(blk)
	}
	return nil
}
