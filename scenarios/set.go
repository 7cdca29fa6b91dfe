package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Setting a value by dotted path is one mechanism, used both for --set
// overrides and for variant values: the value is written into the scenario's
// YAML tree (creating missing mappings on the way), and the whole tree is
// then checked and strictly decoded again. So a value set from the command
// line goes through exactly the checks a value in the file does.

// override is one value to write at a dotted path.
type override struct {
	path string
	text string // the value as YAML gives it (no quotes)
	line int    // its line in the file (0: from --set)
	set  bool   // true: from --set
	old  string // the renamed key's old name the --set gave ("": none)
}

// parseSets parses --set arguments ("key=value"). Keys are checked against
// the Spec, a renamed key's old name taken for its new one (the override
// keeps the old name for its Deprecation); giving both names is an error.
// Values are checked later, with the rest of the spec.
func parseSets(sets []string) ([]override, ValidationErrors) {
	var out []override
	var errs ValidationErrors
	given := map[string]string{} // current name -> key as given
	for _, arg := range sets {
		key, value, ok := strings.Cut(arg, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			errs = append(errs, &ValidationError{File: SetSource, Value: arg, Msg: "want key=value, e.g. load.duration=2s"})
			continue
		}
		path, renamed := canonicalPath(key)
		if first, ok := given[path]; ok && first != key {
			errs = append(errs, &ValidationError{File: SetSource, Field: key, Value: value,
				Msg: fmt.Sprintf("%s names the same field: give only %s (%s is deprecated)", first, path, recordedPath(path))})
			continue
		}
		given[path] = key
		if _, err := resolveSet(path); err != nil {
			errs = append(errs, &ValidationError{File: SetSource, Field: key, Value: value, Msg: err.Error()})
			continue
		}
		o := override{path: path, text: value, set: true}
		if renamed {
			o.old = key
		}
		out = append(out, o)
	}
	return out, errs
}

// apply writes o into the mapping root.
func (o override) apply(root *ast.MappingNode) error {
	t, err := resolveSet(o.path)
	if err != nil {
		return err
	}
	v, err := valueNode(t, o.text, o.line)
	if err != nil {
		return err
	}
	return setPath(root, strings.Split(o.path, "."), v)
}

// valueNode builds the YAML node for text as a value of Go type t: a string
// node for string fields (so DRAIN_MS=500 stays the string "500"), otherwise
// the scalar YAML makes of the text (true, 20, 6s). Text nested more than
// MaxNesting levels deep is an error, and is not parsed.
func valueNode(t reflect.Type, text string, line int) (ast.Node, error) {
	pos := &token.Position{Line: line}
	if t.Kind() == reflect.Slice {
		return listNode(text, line), nil
	}
	if t.Kind() == reflect.String {
		return ast.String(token.String(text, strconv.Quote(text), pos)), nil
	}
	if line, _ := tooDeep(text); line > 0 {
		return nil, errors.New(deepMsg)
	}
	f, err := parser.ParseBytes([]byte(text), 0)
	if err != nil || len(f.Docs) == 0 || f.Docs[0].Body == nil {
		if strings.TrimSpace(text) == "" {
			return ast.Null(token.New("null", "null", pos)), nil
		}
		return ast.String(token.String(text, strconv.Quote(text), pos)), nil
	}
	n := f.Docs[0].Body
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		tk.Position.Line = line
	}
	return n, nil
}

// setPath writes value at path inside root, creating mappings as needed.
func setPath(root *ast.MappingNode, path []string, value ast.Node) error {
	m := root
	for i, seg := range path {
		mv := entry(m, seg)
		if i == len(path)-1 {
			if mv == nil {
				m.Values = append(m.Values, newEntry(seg, value))
			} else {
				mv.Value = value
			}
			return nil
		}
		if mv == nil {
			mv = newEntry(seg, newMapping())
			m.Values = append(m.Values, mv)
		}
		switch v := unwrap(mv.Value).(type) {
		case *ast.MappingNode:
			m = v
		case *ast.MappingValueNode:
			m = ast.Mapping(token.MappingStart("{", &token.Position{}), true, v)
			mv.Value = m
		case *ast.NullNode:
			m = newMapping()
			mv.Value = m
		default:
			return fmt.Errorf("%s is not a mapping", strings.Join(path[:i+1], "."))
		}
	}
	return nil
}

// entry finds the entry with the given key in m.
func entry(m *ast.MappingNode, key string) *ast.MappingValueNode {
	for _, mv := range m.Values {
		if k, _ := scalarText(mv.Key); k == key {
			return mv
		}
	}
	return nil
}

// removeEntry deletes the entry with the given key from m and returns it.
func removeEntry(m *ast.MappingNode, key string) *ast.MappingValueNode {
	for i, mv := range m.Values {
		if k, _ := scalarText(mv.Key); k == key {
			m.Values = append(m.Values[:i:i], m.Values[i+1:]...)
			return mv
		}
	}
	return nil
}

func newEntry(key string, value ast.Node) *ast.MappingValueNode {
	pos := &token.Position{}
	k := ast.String(token.String(key, key, pos))
	return ast.MappingValue(token.MappingValue(pos), k, value)
}

func newMapping() *ast.MappingNode {
	return ast.Mapping(token.MappingStart("{", &token.Position{}), true)
}
