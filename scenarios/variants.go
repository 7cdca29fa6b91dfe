package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// MaxVariants bounds the size of a scenario's variant matrix.
const MaxVariants = 64

// Axis is one key of a scenario's variant matrix: a dotted path into the
// Spec and the values it takes, in file order.
type Axis struct {
	// Key is the dotted path, e.g. "target.mode" or "target.env.DRAIN_MS",
	// as results record it: a renamed key (rename.go) under its old name,
	// whichever name the file gives, so variant labels and params do not
	// change with the rename ("action.timeout" for action.grace_period).
	Key string
	// Values are the values as YAML gives them (without quotes).
	Values []string

	line    int   // line of the key
	lines   []int // line of each value
	fromSet bool  // narrowed to one value by --set
}

// Variant is one fully resolved point of a scenario's matrix.
type Variant struct {
	// Label names the variant by its values, e.g. "mode=full,init=true";
	// "default" for a scenario without variants.
	Label string
	// Slug is Label made filesystem-safe, e.g. "mode-full_init-true".
	Slug string
	// Keys are the variant's dotted paths, in matrix order.
	Keys []string
	// Params maps each of Keys to the variant's value.
	Params map[string]string
	// Spec is the validated spec: defaults, the file, --set overrides and
	// this variant's values.
	Spec Spec
	// Baseline marks the steady-state variant a scenario with baseline:
	// true gets (label "baseline"): the base spec with action kind none.
	Baseline bool
}

// BaselineLabel is the label (and slug) of the baseline variant.
const BaselineLabel = "baseline"

// parseAxes reads the variants mapping (a dotted path -> list of values),
// keeping the file's key order, and returns the old key names it met.
func parseAxes(file string, mv *ast.MappingValueNode) ([]Axis, []Deprecation, ValidationErrors) {
	var errs ValidationErrors
	var deps []Deprecation
	fail := func(line int, field, value, msg string) {
		errs = append(errs, &ValidationError{File: file, Line: line, Field: field, Value: value, Msg: msg})
	}
	values, ok := mappingValues(mv.Value)
	if !ok {
		if mv.Value.Type() != ast.NullType {
			fail(lineOf(mv.Key), "variants", "", "want a mapping of dotted keys to lists of values")
		}
		return nil, nil, errs
	}
	var axes []Axis
	seen := map[string]string{} // current name -> key as written
	size := 1
	for _, kv := range values {
		key, _ := scalarText(kv.Key)
		field, line := "variants."+key, lineOf(kv.Key)
		canon, old := canonicalPath(key)
		if first, ok := seen[canon]; ok && first == key {
			fail(line, field, "", "duplicate key")
			continue
		} else if ok {
			fail(line, field, "", fmt.Sprintf("variants.%s names the same field: give only variants.%s (%s is deprecated)",
				first, canon, recordedPath(canon)))
			continue
		}
		seen[canon] = key
		if old {
			deps = append(deps, Deprecation{File: file, Line: line, Old: "variants." + key, New: "variants." + canon})
		}
		if _, err := resolve(canon); err != nil {
			fail(line, field, "", err.Error())
			continue
		}
		seq, ok := unwrap(kv.Value).(*ast.SequenceNode)
		if !ok {
			fail(line, field, text(kv.Value), "want a list of values, e.g. [none, full]")
			continue
		}
		if len(seq.Values) == 0 {
			fail(line, field, "", "empty list of values")
			continue
		}
		ax := Axis{Key: recordedPath(canon), line: line}
		dup := map[string]bool{}
		for i, n := range seq.Values {
			s, ok := scalarText(n)
			switch {
			case !ok:
				fail(lineOf(n), fmt.Sprintf("%s[%d]", field, i), "", "want a single value, not a list, mapping or null")
			case dup[s]:
				fail(lineOf(n), fmt.Sprintf("%s[%d]", field, i), s, "duplicate value")
			default:
				dup[s] = true
				ax.Values = append(ax.Values, s)
				ax.lines = append(ax.lines, lineOf(n))
			}
		}
		size *= len(ax.Values)
		axes = append(axes, ax)
	}
	if size > MaxVariants {
		fail(lineOf(mv.Key), "variants", "", fmt.Sprintf("%d variants, more than %d", size, MaxVariants))
	}
	return axes, deps, errs
}

// Expand resolves the scenario into its variants: sets ("key=value", the
// same dotted paths as variant keys) are applied to the base spec, then the
// cartesian product of the variant axes is taken in file order (the last
// axis varies fastest). A --set on a variant key narrows that axis to the
// single value. Every variant is decoded and validated; all errors are
// returned together as ValidationErrors.
func (s *Scenario) Expand(sets []string) ([]Variant, error) {
	ovs, setErrs := parseSets(sets)
	axes, _ := s.collapseForImage(narrow(s.Axes, ovs), ovs)
	n := 1
	for _, ax := range axes {
		n *= len(ax.Values)
	}
	if n > MaxVariants {
		return nil, ValidationErrors{{File: s.File, Field: "variants", Msg: fmt.Sprintf("%d variants, more than %d", n, MaxVariants)}}
	}
	keys := make([]string, len(axes))
	for i, ax := range axes {
		keys[i] = ax.Key
	}
	short := shortKeys(keys)

	var variants []Variant
	found := map[string][]string{} // error text -> labels of variants with it
	order := setErrs
	slugs := map[string]int{}
	for i := range n {
		v := Variant{Keys: slices.Clone(keys), Params: map[string]string{}}
		all := append([]override(nil), ovs...)
		var parts []string
		for j, rest := len(axes)-1, i; j >= 0; j-- {
			ax := axes[j]
			k := rest % len(ax.Values)
			rest /= len(ax.Values)
			v.Params[ax.Key] = ax.Values[k]
			path, _ := canonicalPath(ax.Key)
			all = append(all, override{path: path, text: ax.Values[k], line: ax.lines[k], set: ax.fromSet})
			parts = append([]string{short[j] + "=" + ax.Values[k]}, parts...)
		}
		v.Label = "default"
		if len(parts) > 0 {
			v.Label = strings.Join(parts, ",")
		}
		v.Slug = slugify(v.Label)
		if c := slugs[v.Slug]; c > 0 {
			v.Slug = fmt.Sprintf("%s-%d", v.Slug, c+1)
		}
		slugs[v.Slug]++
		spec, _, verrs := s.build(all)
		for _, e := range verrs.sorted() {
			k := e.Error()
			if found[k] == nil {
				order = append(order, e)
			}
			found[k] = append(found[k], v.Label)
		}
		v.Spec = spec
		variants = append(variants, v)
	}
	for _, e := range order {
		if labels := found[e.Error()]; len(labels) < n {
			e.Variant = strings.Join(labels, "; ")
		}
	}
	if err := order.errOrNil(); err != nil {
		return nil, err
	}
	if len(variants) > 0 && variants[0].Spec.Baseline {
		b, err := s.baseline(ovs, axes)
		if err != nil {
			return nil, err
		}
		variants = append(variants, b)
	}
	return variants, nil
}

// baseline builds the steady-state variant: the base spec (--set applied,
// no variant values) without its action. Axes that would make the
// baseline's load differ from a variant's are errors.
func (s *Scenario) baseline(ovs []override, axes []Axis) (Variant, error) {
	var errs ValidationErrors
	for _, ax := range axes {
		if len(ax.Values) < 2 {
			continue
		}
		for _, p := range baselineAxes {
			if strings.HasPrefix(ax.Key, p) {
				errs = append(errs, &ValidationError{File: s.File, Line: ax.line, Field: "variants." + ax.Key,
					Msg: "a scenario with baseline: true may not vary load, replicas, topology or proxy (one baseline serves every variant)"})
			}
		}
	}
	spec, _, verrs := s.build(ovs)
	errs = append(errs, verrs...)
	if err := errs.errOrNil(); err != nil {
		return Variant{}, err
	}
	spec.Action = Action{Kind: ActionNone, At: spec.Action.At, Roll: Roll{Via: ActionSignal, Replacement: ReplaceNone}}
	return Variant{Label: BaselineLabel, Slug: BaselineLabel, Keys: []string{"action.kind"},
		Params: map[string]string{"action.kind": string(ActionNone)}, Spec: spec, Baseline: true}, nil
}

// narrow replaces every axis that a --set names with that single value.
func narrow(axes []Axis, ovs []override) []Axis {
	out := make([]Axis, len(axes))
	copy(out, axes)
	for _, o := range ovs {
		for i := range out {
			if path, _ := canonicalPath(out[i].Key); path == o.path {
				out[i] = Axis{Key: out[i].Key, Values: []string{o.text}, lines: []int{0}, fromSet: true}
			}
		}
	}
	return out
}

// shortKeys names each key by its last path segment, or by the whole path
// when two keys share their last segment.
func shortKeys(keys []string) []string {
	last := func(k string) string { return k[strings.LastIndex(k, ".")+1:] }
	count := map[string]int{}
	for _, k := range keys {
		count[last(k)]++
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = last(k)
		if count[out[i]] > 1 {
			out[i] = k
		}
	}
	return out
}

// slugify makes a label filesystem-safe: lower case, '=' -> '-',
// ',' -> '_', anything but letters, digits, '.', '_' and '-' -> '-'.
func slugify(label string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(label) {
		switch {
		case r == ',':
			b.WriteByte('_')
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}
