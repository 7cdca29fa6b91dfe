package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// A part is one capability's metrics of a run (a *wsmetrics.Metrics for
// ws): held by Metrics under the capability's name, read through the
// capability's typed accessor (websockets.Of, queuejobs.Of…), and written
// into summary.json flat, its keys beside the core metrics', as if its
// fields were Metrics' own. A capability adds its part without a field
// in Metrics: its Compute returns it (capability.go).

// SetPart stores p as the part of capability name; a nil p, typed or
// not, removes it (the run does not have the capability's metrics). The
// parts are copied first, so a copy of m made before keeps its own. A p
// of another type than the capability's Part panics: a programming
// error that would otherwise read as "no metrics".
func (m *Metrics) SetPart(name Need, p any) {
	m.parts = maps.Clone(m.parts)
	if p == nil || (reflect.ValueOf(p).Kind() == reflect.Pointer && reflect.ValueOf(p).IsNil()) {
		delete(m.parts, name)
		return
	}
	if i := slices.IndexFunc(installed(), func(c Capability) bool { return c.Name == name }); i < 0 ||
		reflect.TypeOf(p) != reflect.TypeOf(installed()[i].Part) {
		panic(fmt.Sprintf("report: a %T is no part of capability %q", p, name))
	}
	if m.parts == nil {
		m.parts = map[Need]any{}
	}
	m.parts[name] = p
}

// PartOf returns m's part of capability name as a *T; nil when the run
// has none. A capability's package wraps it in its typed accessor.
func PartOf[T any](m *Metrics, name Need) *T {
	p, _ := m.parts[name].(*T)
	return p
}

// PartDef is one catalog row of capability name read from its part, a
// *T: optional, present in every run that has the part (whatever its
// values), null in the others; read reads the value from the part.
func PartDef[T any](name Need, metric string, k Kind, null string, cmp Comparison, doc string, read func(*T) Value) MetricDef {
	return MetricDef{Name: metric, Kind: k, Null: null, Compare: cmp, Optional: name, Doc: doc,
		Present: func(m *Metrics) bool { return PartOf[T](m, name) != nil },
		Read: func(m *Metrics) Value {
			p := PartOf[T](m, name)
			if p == nil {
				return Value{Null: true}
			}
			return read(p)
		}}
}

// partsKey is where the parts' keys go in the JSON: before the harness's
// own cost, where the embedded capability structs of earlier versions put
// them, so that summary.json reads the same.
const partsKey = `,"setup_ms":`

// MarshalJSON writes the core metrics, then each part's keys in the
// order of the capabilities (Capabilities), then the harness cost and the
// notes: one flat object.
func (m Metrics) MarshalJSON() ([]byte, error) {
	type core Metrics // without this method; parts is unexported
	b, err := json.Marshal(core(m))
	if err != nil || len(m.parts) == 0 {
		return b, err
	}
	at := bytes.Index(b, []byte(partsKey))
	if at < 0 {
		return nil, fmt.Errorf("report: no %s key in the metrics' JSON", partsKey)
	}
	var keys bytes.Buffer
	written := 0
	for _, c := range installed() {
		p, ok := m.parts[c.Name]
		if !ok {
			continue
		}
		written++
		pb, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("report: the %s metrics: %w", c.Name, err)
		}
		if inner := bytes.TrimSuffix(bytes.TrimPrefix(pb, []byte("{")), []byte("}")); len(inner) > 0 {
			keys.WriteByte(',')
			keys.Write(inner)
		}
	}
	if written != len(m.parts) {
		return nil, fmt.Errorf("report: metrics hold a part of no capability (%d parts, %d written)", len(m.parts), written)
	}
	return slices.Concat(b[:at], keys.Bytes(), b[at:]), nil
}
