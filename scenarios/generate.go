package scenarios

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// Generate makes the scenario a command builds as a value (shutdownlab
// check's, check --manifest's): spec says what the generated file says,
// axes its variant matrix. The spec is marshalled once — every field it
// sets (a non-zero value, or a pointer that is not nil, whatever it points
// to), and the kinds' blocks it holds — and that text is the scenario's
// Raw, the scenario.yaml saved beside its results; comment, when given,
// heads it as YAML comment lines. It then loads as a file does: fields
// the spec leaves zero take their defaults, and --set, variants and
// errors (naming file) work on it alike.
func Generate(file, comment string, spec Spec, axes []Axis) (*Scenario, error) {
	doc, err := sparse(reflect.ValueOf(spec))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	m, _ := doc.(yaml.MapSlice)
	if len(axes) > 0 {
		var vs yaml.MapSlice
		for _, a := range axes {
			vs = append(vs, yaml.MapItem{Key: a.Key, Value: a.Values})
		}
		m = append(m, yaml.MapItem{Key: "variants", Value: vs})
	}
	b, err := yaml.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if comment != "" {
		b = append([]byte("# "+strings.ReplaceAll(comment, "\n", "\n# ")+"\n"), b...)
	}
	return parse(file, b)
}

// sparse is v as YAML would write the fields a scenario file gives: a
// struct as a mapping of its non-zero fields (and non-nil pointers) by
// their yaml names, followed by the kinds' blocks it holds; a text
// marshaler (a Duration) as its text; a map as a mapping by sorted key.
func sparse(v reflect.Value) (any, error) {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if tm, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, err := tm.MarshalText()
		return string(b), err
	}
	switch v.Kind() {
	case reflect.Struct:
		return sparseStruct(v)
	case reflect.Map:
		var m yaml.MapSlice
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for _, k := range v.MapKeys() {
				if !yield(k.String()) {
					return
				}
			}
		}) {
			x, err := sparse(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())))
			if err != nil {
				return nil, err
			}
			m = append(m, yaml.MapItem{Key: k, Value: x})
		}
		return m, nil
	case reflect.Slice:
		out := []any{}
		for i := range v.Len() {
			x, err := sparse(v.Index(i))
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case reflect.String:
		return v.String(), nil
	}
	return v.Interface(), nil
}

// sparseStruct is a struct's mapping for sparse: its set fields, then its
// blocks.
func sparseStruct(v reflect.Value) (yaml.MapSlice, error) {
	var m yaml.MapSlice
	for i := range v.NumField() {
		f := v.Type().Field(i)
		fv := v.Field(i)
		if !f.IsExported() || fv.IsZero() {
			continue
		}
		x, err := sparse(fv)
		if err != nil {
			return nil, err
		}
		m = append(m, yaml.MapItem{Key: yamlName(f), Value: x})
	}
	blocks, err := sparseBlocks(v.Interface())
	return append(m, blocks...), err
}

// sparseBlocks are the kinds' blocks a Spec, LoadSpec or Action holds,
// each under its key.
func sparseBlocks(host any) (yaml.MapSlice, error) {
	byKey := map[string]any{}
	switch h := host.(type) {
	case Spec:
		for p, b := range h.blocks {
			d, _ := platformOf(p)
			byKey[d.block] = b
		}
	case LoadSpec:
		for k, b := range h.blocks {
			byKey[loadKinds[k].Block] = b
		}
	case Action:
		for k, b := range h.blocks {
			byKey[actionBlocks[k].key] = b
		}
	}
	var m yaml.MapSlice
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for k := range byKey {
			if !yield(k) {
				return
			}
		}
	}) {
		x, err := sparse(reflect.ValueOf(byKey[key]))
		if err != nil {
			return nil, err
		}
		m = append(m, yaml.MapItem{Key: key, Value: x})
	}
	return m, nil
}
