package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// A part is one capability's record inside a Meta (the probe's line, the
// WebSocket totals, the resource sampling, the jobs ledger, the Swarm
// rollout) or inside an Action (terminate's Termination). It is no field
// of its host: the capability's own record file registers it
// (registerPart: its JSON key, its type and the key it follows), code
// reads it through the capability's accessor (m.Jobs(), a.Termination())
// and sets it with SetPart, and the host's JSON writes it where the key
// it follows puts it, so events.json reads as if it were a field. A new
// capability adds its record without editing Meta or Action.

// partDef is one registered part: its JSON key, its pointer type, and
// the key it follows in its host's JSON (a field of the host or another
// part's key; "": after everything).
type partDef struct {
	key, after string
	typ        reflect.Type
}

// partHost is a type that holds parts: its registered parts by key.
type partHost struct {
	name  string
	parts map[string]partDef
}

// The hosts of parts.
var (
	metaParts   = &partHost{name: "Meta", parts: map[string]partDef{}}
	actionParts = &partHost{name: "Action", parts: map[string]partDef{}}
)

// registerPart declares part T (held as *T) of host h under JSON key
// key, following the key after. It panics, at program start, on a key or
// type registered twice, an empty key, or parts that follow each other in
// a circle (which would leave them nowhere to be written).
func registerPart[T any](h *partHost, key, after string) {
	typ := reflect.TypeFor[*T]()
	_, taken := h.parts[key]
	if key == "" || taken || h.keyOf(typ) != "" {
		panic(fmt.Sprintf("record: part %q (%v) of %s registered twice or empty", key, typ, h.name))
	}
	for a := after; a != ""; a = h.parts[a].after {
		if a == key {
			panic(fmt.Sprintf("record: part %q of %s follows itself (through %q)", key, h.name, after))
		}
		if _, ok := h.parts[a]; !ok {
			break // a field of the host
		}
	}
	h.parts[key] = partDef{key: key, after: after, typ: typ}
}

// partOf returns the part under key in parts as a *T, or nil.
func partOf[T any](parts map[string]any, key string) *T {
	t, _ := parts[key].(*T)
	return t
}

// withPart returns a copy of parts with p under its registered key (a
// nil pointer: without it). A p of a type h has not registered panics: a
// programming error that would otherwise read as "not recorded".
func (h *partHost) withPart(parts map[string]any, p any) map[string]any {
	key := h.keyOf(reflect.TypeOf(p))
	if key == "" {
		panic(fmt.Sprintf("record: a %T is no part of %s", p, h.name))
	}
	out := maps.Clone(parts)
	if out == nil {
		out = map[string]any{}
	}
	if reflect.ValueOf(p).IsNil() {
		delete(out, key)
	} else {
		out[key] = p
	}
	return out
}

// keyOf returns the key of the part of type typ ("": none).
func (h *partHost) keyOf(typ reflect.Type) string {
	for key, d := range h.parts {
		if d.typ == typ {
			return key
		}
	}
	return ""
}

// order returns the part keys of h in the order they are written after
// the host field (or "") they finally follow: by the length of their
// chain of parts, then by key.
func (h *partHost) order() map[string][]string {
	type placed struct {
		key   string
		depth int
	}
	byAnchor := map[string][]placed{}
	for key := range h.parts {
		anchor, depth := key, 0
		for {
			d, ok := h.parts[anchor]
			if !ok {
				break
			}
			anchor, depth = d.after, depth+1
		}
		byAnchor[anchor] = append(byAnchor[anchor], placed{key, depth})
	}
	out := map[string][]string{}
	for anchor, ps := range byAnchor {
		slices.SortFunc(ps, func(a, b placed) int {
			if a.depth != b.depth {
				return a.depth - b.depth
			}
			return bytes.Compare([]byte(a.key), []byte(b.key))
		})
		for _, p := range ps {
			out[anchor] = append(out[anchor], p.key)
		}
	}
	return out
}

// marshal writes plain (the host without its MarshalJSON) with its parts:
// after each field of fields (the host's JSON keys, in field order), the
// parts that follow it; then those that follow "".
func (h *partHost) marshal(plain any, fields []string, parts map[string]any) ([]byte, error) {
	obj, err := json.Marshal(plain)
	if err != nil || len(parts) == 0 {
		return obj, err
	}
	var vals map[string]json.RawMessage
	if err := json.Unmarshal(obj, &vals); err != nil {
		return nil, err
	}
	order := h.order()
	var b bytes.Buffer
	b.WriteByte('{')
	put := func(key string, v []byte) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	putParts := func(anchor string) error {
		for _, key := range order[anchor] {
			if p, ok := parts[key]; ok {
				v, err := json.Marshal(p)
				if err != nil {
					return err
				}
				put(key, v)
			}
		}
		return nil
	}
	for _, f := range fields {
		if v, ok := vals[f]; ok {
			put(f, v)
		}
		if err := putParts(f); err != nil {
			return nil, err
		}
	}
	if err := putParts(""); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// unmarshal reads each registered part key of the JSON object b into a
// fresh part and returns them by key (a null value: none).
func (h *partHost) unmarshal(b []byte) (map[string]any, error) {
	var vals map[string]json.RawMessage
	if err := json.Unmarshal(b, &vals); err != nil {
		return nil, err
	}
	var parts map[string]any
	for key, d := range h.parts {
		raw, ok := vals[key]
		if !ok || string(raw) == "null" {
			continue
		}
		p := reflect.New(d.typ.Elem()).Interface()
		if err := json.Unmarshal(raw, p); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		if parts == nil {
			parts = map[string]any{}
		}
		parts[key] = p
	}
	return parts, nil
}

// jsonFields are the JSON keys of struct type t's exported fields, in
// order.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := bytes.Cut([]byte(f.Tag.Get("json")), []byte(","))
		if string(name) == "-" {
			continue
		}
		if len(name) == 0 {
			name = []byte(f.Name)
		}
		out = append(out, string(name))
	}
	return out
}

// The JSON keys of Meta's and Action's own fields, in order.
var (
	metaFields   = jsonFields(reflect.TypeFor[Meta]())
	actionFields = jsonFields(reflect.TypeFor[Action]())
)

// SetPart gives the run the capability record p (a registered part's
// pointer: *Jobs, *WSTotals, …), replacing one of its type; a nil
// pointer removes it. Copies of m made before keep their own.
func (m *Meta) SetPart(p any) { m.parts = metaParts.withPart(m.parts, p) }

// MarshalJSON writes the run's fields and its parts, each where the key
// it follows puts it.
func (m Meta) MarshalJSON() ([]byte, error) {
	type plain Meta // its fields, without this method
	return metaParts.marshal(plain(m), metaFields, m.parts)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *Meta) UnmarshalJSON(b []byte) error {
	type plain Meta
	p := plain(*m)
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	parts, err := metaParts.unmarshal(b)
	*m = Meta(p)
	m.parts = parts
	return err
}

// SetPart gives the action the capability record p (*Termination),
// replacing one of its type; a nil pointer removes it.
func (a *Action) SetPart(p any) { a.parts = actionParts.withPart(a.parts, p) }

// MarshalJSON writes the action's fields and its parts.
func (a Action) MarshalJSON() ([]byte, error) {
	type plain Action
	return actionParts.marshal(plain(a), actionFields, a.parts)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *Action) UnmarshalJSON(b []byte) error {
	type plain Action
	p := plain(*a)
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	parts, err := actionParts.unmarshal(b)
	*a = Action(p)
	a.parts = parts
	return err
}

// With returns a copy of m with each of parts set (SetPart): a Meta
// literal with its capabilities' records.
func (m Meta) With(parts ...any) Meta {
	for _, p := range parts {
		m.SetPart(p)
	}
	return m
}

// With sets each of parts on a (SetPart) and returns a: an Action literal
// with its kind's records.
func (a *Action) With(parts ...any) *Action {
	for _, p := range parts {
		a.SetPart(p)
	}
	return a
}
