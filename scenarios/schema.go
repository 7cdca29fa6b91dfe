package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// The schema check walks a scenario's YAML tree against the Spec type (via
// its yaml tags) before go-yaml decodes it, so that every unknown field, bad
// duration and mistyped value of a file is reported at once, each with its
// line and field path. go-yaml's strict decoder stops at the first problem
// and loses the position of errors from custom unmarshalers.

var (
	specType     = reflect.TypeFor[Spec]()
	loadSpecType = reflect.TypeFor[LoadSpec]()
	actionType   = reflect.TypeFor[Action]()
	durationType = reflect.TypeFor[Duration]()
)

// locator maps field paths to where their values came from.
type locator struct {
	file    string
	lines   map[string]int  // field path -> 1-based line (0: default)
	fromSet map[string]bool // field paths whose value came from --set
}

func newLocator(file string) *locator {
	return &locator{file: file, lines: map[string]int{}, fromSet: map[string]bool{}}
}

// errAt builds a ValidationError for the field at path.
func (l *locator) errAt(path, value, msg string) *ValidationError {
	if base, _, _ := strings.Cut(path, "["); l.fromSet[path] || l.fromSet[base] {
		return &ValidationError{File: SetSource, Field: path, Value: value, Msg: msg}
	}
	return &ValidationError{File: l.file, Line: l.line(path), Field: path, Value: value, Msg: msg}
}

// line is the line of path, or of its nearest parent in the file when the
// value itself is a default (load.rate missing from a load block: the line
// of load).
func (l *locator) line(path string) int {
	for path != "" {
		if n := l.lines[path]; n > 0 {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

// checker collects schema errors and records the line of every field.
type checker struct {
	loc  *locator
	errs ValidationErrors
}

func (c *checker) fail(path, value, msg string) {
	c.errs = append(c.errs, c.loc.errAt(path, value, msg))
}

// walk checks node n against type t; path is the field path of n and line
// the line of its key (or of n itself for list items).
func (c *checker) walk(n ast.Node, t reflect.Type, path string, line int) {
	c.loc.lines[path] = line
	n = unwrap(n)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil || n.Type() == ast.NullType {
		c.fail(path, "", "empty value (give a value or remove the key)")
		return
	}
	if _, ok := n.(*ast.AliasNode); ok {
		c.fail(path, "", "YAML aliases are not supported")
		return
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		if t == durationType {
			break
		}
		c.walkMapping(n, t, path)
		return
	case reflect.Slice:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			c.fail(path, text(n), "want a list")
			return
		}
		for i, item := range seq.Values {
			c.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), lineOf(item))
		}
		return
	}
	s, ok := scalarText(n)
	if !ok {
		c.fail(path, "", "want a single value, not a list or mapping")
		return
	}
	if l := lineOf(n); l > 0 {
		c.loc.lines[path] = l // a variant's value: its line in variants
	}
	switch {
	case t == durationType:
		if _, err := ParseDuration(s); err != nil {
			c.fail(path, s, "invalid duration (want e.g. 6s, 500ms)")
		}
	case t.Kind() == reflect.Int:
		if _, ok := n.(*ast.IntegerNode); !ok {
			c.fail(path, s, "want a whole number")
		} else if v, err := strconv.ParseInt(s, 0, 64); err != nil || v > math.MaxInt32 || v < math.MinInt32 {
			c.fail(path, s, "number out of range")
		}
	case t.Kind() == reflect.Float64:
		if n.Type() != ast.IntegerType && n.Type() != ast.FloatType {
			c.fail(path, s, "want a number")
		}
	case t.Kind() == reflect.Bool:
		if n.Type() != ast.BoolType {
			c.fail(path, s, "want true or false")
		}
	}
}

// walkMapping checks a mapping against struct type t (known keys) or map
// type t (any key).
func (c *checker) walkMapping(n ast.Node, t reflect.Type, path string) {
	values, ok := mappingValues(n)
	if !ok {
		c.fail(path, text(n), "want a mapping (key: value)")
		return
	}
	seen := map[string]bool{}
	for _, mv := range values {
		key, _ := scalarText(mv.Key)
		if key == "" {
			key = `""` // an empty or non-scalar key still gets a name in the error
		}
		sub := joinPath(path, key)
		line := lineOf(mv.Key)
		if seen[key] {
			c.loc.lines[sub] = line
			c.fail(sub, "", "duplicate key")
			continue
		}
		seen[key] = true
		if t.Kind() == reflect.Map {
			c.walk(mv.Value, t.Elem(), sub, line)
			continue
		}
		ft, ok := fieldByTag(t, key)
		if !ok {
			c.loc.lines[sub] = line
			known := tags(t)
			if path == "" {
				known = append(known, "variants")
			}
			c.fail(sub, "", fmt.Sprintf("unknown field (want one of: %s)", strings.Join(known, ", ")))
			continue
		}
		c.walk(mv.Value, ft, sub, line)
	}
}

// resolve returns the Go type of the scalar field at a dotted path, or an
// error saying why the path does not name one. Map entries (target.env.X)
// resolve to the map's element type.
func resolve(path string) (reflect.Type, error) {
	t := specType
	var done []string
	for _, seg := range strings.Split(path, ".") {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case seg == "":
			return nil, fmt.Errorf("empty path segment")
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t.Kind() == reflect.Struct && t != durationType:
			ft, ok := fieldByTag(t, seg)
			if !ok {
				where := "at the top level"
				if len(done) > 0 {
					where = "in " + strings.Join(done, ".")
				}
				return nil, fmt.Errorf("unknown field %q %s (want one of: %s)", seg, where, strings.Join(tags(t), ", "))
			}
			t = ft
		default:
			return nil, fmt.Errorf("%s is a single value and has no field %q", strings.Join(done, "."), seg)
		}
		done = append(done, seg)
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case path == "name" || path == "description":
		return nil, fmt.Errorf("cannot be set or varied")
	case t == durationType:
	case t.Kind() == reflect.Struct, t.Kind() == reflect.Map, t.Kind() == reflect.Slice:
		return nil, fmt.Errorf("not a single value (lists and mappings cannot be set or varied)")
	}
	return t, nil
}

// fieldByTag returns the type of the field of struct t whose YAML key is
// tag; a kind's settings block is a field too (kindblocks.go).
func fieldByTag(t reflect.Type, tag string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.IsExported() && yamlName(f) == tag {
			return f.Type, true
		}
	}
	if h, ok := blockHosts[t]; ok {
		if b, ok := h.newBlock(tag); ok {
			return reflect.TypeOf(b), true
		}
	}
	return nil, false
}

// tags are the YAML keys of struct t, in field order; for a type with
// kinds' blocks (kindblocks.go), their keys follow its after field.
func tags(t reflect.Type) []string {
	h, hosts := blockHosts[t]
	var out []string
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			out = append(out, yamlName(t.Field(i)))
		}
		if hosts && h.after != "" && yamlName(t.Field(i)) == h.after {
			out = append(out, h.keys()...)
		}
	}
	if hosts && h.after == "" {
		out = append(out, h.keys()...)
	}
	return out
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// unwrap removes anchors and tags around a value.
func unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.MappingKeyNode: // an explicit key: "? name"
			n = v.Value
		default:
			return n
		}
	}
}

// mappingValues returns the entries of a mapping node.
func mappingValues(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := unwrap(n).(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

// scalarText returns the text of a scalar node as YAML gives it (without
// quotes); false for null, lists and mappings.
func scalarText(n ast.Node) (string, bool) {
	switch v := unwrap(n).(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	case *ast.NullNode:
		return "", false
	case ast.ScalarNode:
		return v.GetToken().Value, true
	}
	return "", false
}

// text is scalarText without the flag.
func text(n ast.Node) string {
	s, _ := scalarText(n)
	return s
}

// lineOf is the 1-based line of a node (0 when it has no position, as for
// values built from --set).
func lineOf(n ast.Node) int {
	if n == nil {
		return 0
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line
	}
	return 0
}
