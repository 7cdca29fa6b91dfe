package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
)

// A kind's settings block (load.ws, action.terminate, a platform's swarm,
// …) is no field of LoadSpec, Action or Spec: the kind's own file (or
// the platform's entry) registers the block's key and type
// (RegisterLoadKind, registerActionBlock, platformDefs), and the schema check, the
// strict decoder (build), --set and the JSON of effective.json find it
// through that registration, as if it were a field. Code reads a block
// through its kind's accessor (websockets.LoadOf(l), a.Terminate()) and sets one with
// SetBlock. So a new kind with settings edits no shared type.

// blockHost is a type whose kinds' blocks are keys beside its fields.
type blockHost struct {
	// keys are the block keys, in the kinds' order; newBlock returns a
	// fresh block for a key (false: no kind has it).
	keys     func() []string
	newBlock func(key string) (any, bool)
	// after is the field the blocks follow in YAML key lists and in JSON
	// ("": the last field).
	after string
}

// blockHosts are the types with kinds' blocks, and the sections of a
// scenario file they decode.
var blockHosts = map[reflect.Type]blockHost{
	specType:     {keys: platformBlockKeys, newBlock: func(key string) (any, bool) { return platformBlockOf(key) }, after: "platform"},
	loadSpecType: {keys: loadBlockKeys, newBlock: func(key string) (any, bool) { return loadBlockOf(key) }},
	actionType:   {keys: actionBlockKeys, newBlock: func(key string) (any, bool) { return actionBlockOf(key) }, after: "roll"},
}

// blockOf returns the block of kind k in blocks, typed, or nil.
func blockOf[T any, K comparable, B any](blocks map[K]B, k K) T {
	b, _ := any(blocks[k]).(T)
	return b
}

// withBlock returns a copy of blocks with b as kind k's block (a nil
// pointer: without one). Copying on write keeps a copied spec's blocks
// its own, as they would be in pointer fields.
func withBlock[K comparable, B any](blocks map[K]B, k K, b B) map[K]B {
	out := maps.Clone(blocks)
	if out == nil {
		out = map[K]B{}
	}
	if v := reflect.ValueOf(b); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		delete(out, k)
	} else {
		out[k] = b
	}
	return out
}

// marshalWithBlocks writes plain (the host's value without its
// MarshalJSON) with each of its blocks (keyed by their kind's key)
// after the host's after field, in the host's key order.
func marshalWithBlocks[K comparable, B any](plain any, blocks map[K]B, key func(K) string, host blockHost) ([]byte, error) {
	obj, err := json.Marshal(plain)
	if err != nil || len(blocks) == 0 {
		return obj, err
	}
	byKey := map[string]any{}
	for k, b := range blocks {
		byKey[key(k)] = b
	}
	var ins []byte
	for _, key := range host.keys() {
		b, ok := byKey[key]
		if !ok {
			continue
		}
		v, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		k, _ := json.Marshal(key)
		ins = append(append(append(append(ins, ','), k...), ':'), v...)
	}
	at, err := endOfKey(obj, host.after)
	if err != nil {
		return nil, err
	}
	return append(append(append([]byte{}, obj[:at]...), ins...), obj[at:]...), nil
}

// endOfKey returns the offset in the JSON object obj just after the
// value of its top-level key (the closing brace when key is "" or absent).
func endOfKey(obj []byte, key string) (int, error) {
	end := bytes.LastIndexByte(obj, '}')
	if key == "" || end < 0 {
		return end, nil
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return 0, err
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, err
		}
		if k == key {
			return int(dec.InputOffset()), nil
		}
	}
	return end, nil
}

// unmarshalBlocks reads each block key of host in the JSON object b into
// a fresh block and hands it to set (a null value: none).
func unmarshalBlocks(b []byte, host blockHost, section string, set func(any)) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	for _, key := range host.keys() {
		raw, ok := keys[key]
		if !ok || string(raw) == "null" {
			continue
		}
		blk, _ := host.newBlock(key)
		if err := json.Unmarshal(raw, blk); err != nil {
			return fmt.Errorf("%s: %w", joinPath(section, key), err)
		}
		set(blk)
	}
	return nil
}

// loadBlock returns the block of load kind k, typed, or nil.
func loadBlock[T LoadBlock](l LoadSpec, k LoadKind) T { return blockOf[T](l.blocks, k) }

// SetBlock gives the load the settings block b of b's kind, replacing one
// it had; a nil pointer removes it.
func (l *LoadSpec) SetBlock(b LoadBlock) { l.blocks = withBlock(l.blocks, b.LoadKind(), b) }

// MarshalJSON writes the load's fields, then each block it holds as the
// key load.KEY (a valid spec holds one at most, its kind's).
func (l LoadSpec) MarshalJSON() ([]byte, error) {
	type plain LoadSpec // its fields, without this method
	return marshalWithBlocks(plain(l), l.blocks, func(k LoadKind) string { return loadKinds[k].Block }, blockHosts[loadSpecType])
}

// UnmarshalJSON reads what MarshalJSON writes: the fields onto l's
// current values, each block key into a fresh block.
func (l *LoadSpec) UnmarshalJSON(b []byte) error {
	type plain LoadSpec
	p := plain(*l)
	err := json.Unmarshal(b, &p)
	*l = LoadSpec(p)
	if err != nil {
		return err
	}
	return unmarshalBlocks(b, blockHosts[loadSpecType], "load", func(blk any) { l.SetBlock(blk.(LoadBlock)) })
}

// A PlatformBlock is a platform's settings block (the top-level key
// swarm): *Swarm. Each says its platform.
type PlatformBlock interface {
	platform() Platform
}

// platformBlockKeys are the platforms' block keys, in platformDefs' order.
func platformBlockKeys() []string {
	var keys []string
	for _, d := range platformDefs {
		if d.block != "" {
			keys = append(keys, d.block)
		}
	}
	return keys
}

// platformBlockOf returns a fresh block for key, or false.
func platformBlockOf(key string) (PlatformBlock, bool) {
	for _, d := range platformDefs {
		if d.block != "" && d.block == key {
			return d.newBlock(), true
		}
	}
	return nil, false
}

// SetBlock gives the spec the settings block b of b's platform, replacing
// one it had; a nil pointer removes it.
func (s *Spec) SetBlock(b PlatformBlock) { s.blocks = withBlock(s.blocks, b.platform(), b) }

// MarshalJSON writes the spec's fields with each platform block it holds
// as a top-level key after platform.
func (s Spec) MarshalJSON() ([]byte, error) {
	type plain Spec // its fields, without this method
	key := func(p Platform) string { d, _ := platformOf(p); return d.block }
	return marshalWithBlocks(plain(s), s.blocks, key, blockHosts[specType])
}

// UnmarshalJSON reads what MarshalJSON writes: the fields onto s's
// current values, each platform block into a fresh block.
func (s *Spec) UnmarshalJSON(b []byte) error {
	type plain Spec
	p := plain(*s)
	err := json.Unmarshal(b, &p)
	*s = Spec(p)
	if err != nil {
		return err
	}
	return unmarshalBlocks(b, blockHosts[specType], "", func(blk any) { s.SetBlock(blk.(PlatformBlock)) })
}
