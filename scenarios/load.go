package scenarios

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

//go:embed catalog/*.yaml
var catalogFS embed.FS

// catalogDir is how catalog files are named in errors and Scenario.File.
const catalogDir = "scenarios/catalog"

// Scenario is one loaded and validated scenario file.
type Scenario struct {
	// File is where the scenario came from: the path given to Load, or
	// "scenarios/catalog/<name>.yaml" for a catalog scenario.
	File string
	// Spec is the base spec: defaults plus the file, before --set overrides
	// and variants. Use Expand for runnable specs.
	Spec Spec
	// Axes is the variant matrix, in file order (empty: one variant).
	Axes []Axis

	raw          []byte
	lines        map[string]int // base spec field path -> line
	deprecations []Deprecation  // old key names the file uses (rename.go)
}

// Line returns the line of field (a dotted path as in errors, e.g.
// "load.duration" or "expect[1]") in the scenario file, or of its nearest
// parent written there; 0 when neither is in the file.
func (s *Scenario) Line(field string) int {
	return (&locator{lines: s.lines}).line(field)
}

// Name returns the scenario's name.
func (s *Scenario) Name() string { return s.Spec.Name }

// Raw returns the exact text of the scenario file, for saving next to the
// results it produced.
func (s *Scenario) Raw() []byte { return bytes.Clone(s.raw) }

// Load reads, decodes and validates the scenario file at path, including
// every variant of its matrix. A file larger than MaxFileBytes is refused
// unread. An invalid file yields ValidationErrors
// listing every problem found, each with file:line, field and value.
func Load(path string) (*Scenario, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	return parse(path, data)
}

// Catalog returns the scenarios embedded in shutdownlab, sorted by name. A
// catalog scenario's name must equal its file's base name.
func Catalog() ([]*Scenario, error) {
	entries, err := catalogFS.ReadDir("catalog")
	if err != nil {
		return nil, err
	}
	var out []*Scenario
	var errs ValidationErrors
	for _, e := range entries {
		data, err := catalogFS.ReadFile("catalog/" + e.Name())
		if err != nil {
			return nil, err
		}
		sc, err := parse(path.Join(catalogDir, e.Name()), data)
		if ves, ok := err.(ValidationErrors); ok {
			errs = append(errs, ves...)
			continue
		} else if err != nil {
			return nil, err
		}
		if base := strings.TrimSuffix(e.Name(), ".yaml"); sc.Spec.Name != base {
			errs = append(errs, &ValidationError{File: sc.File, Line: sc.lines["name"], Field: "name",
				Value: sc.Spec.Name, Msg: fmt.Sprintf("must equal the file's base name %q", base)})
			continue
		}
		out = append(out, sc)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// Find returns the catalog scenario called nameOrPath, or, when nameOrPath
// looks like a path (it contains a path separator or ends in .yaml or .yml),
// loads that file. The error for an unknown name lists the catalog.
func Find(nameOrPath string) (*Scenario, error) {
	if strings.ContainsAny(nameOrPath, `/\`) || strings.HasSuffix(nameOrPath, ".yaml") ||
		strings.HasSuffix(nameOrPath, ".yml") {
		return Load(nameOrPath)
	}
	if sc, ok, err := findOne(nameOrPath); ok {
		return sc, err
	}
	all, err := Catalog()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, sc := range all {
		if sc.Name() == nameOrPath {
			return sc, nil
		}
		names = append(names, sc.Name())
	}
	return nil, fmt.Errorf("unknown scenario %q (available: %s; or give a path to a .yaml file)",
		Shorten(nameOrPath), strings.Join(names, ", "))
}

// findOne parses the one catalog file called name (false: there is
// none), so that finding a scenario needs no other one to decode: a
// package that links some capabilities only (a core package's tests)
// finds its scenarios while the catalog holds others of kinds it lacks.
func findOne(name string) (*Scenario, bool, error) {
	file := name + ".yaml"
	data, err := catalogFS.ReadFile("catalog/" + file)
	if err != nil {
		return nil, false, nil
	}
	sc, err := parse(path.Join(catalogDir, file), data)
	if err != nil {
		return nil, true, err
	}
	if sc.Spec.Name != name {
		return nil, true, ValidationErrors{{File: sc.File, Line: sc.lines["name"], Field: "name",
			Value: sc.Spec.Name, Msg: fmt.Sprintf("must equal the file's base name %q", name)}}
	}
	return sc, true, nil
}

// parse builds and validates a Scenario from a file's text.
func parse(file string, data []byte) (*Scenario, error) {
	if len(data) > MaxFileBytes {
		return nil, tooLarge(file, int64(len(data)))
	}
	if line, key := tooDeep(string(data)); line > 0 {
		return nil, ValidationErrors{{File: file, Line: line, Field: Shorten(key), Msg: deepMsg}}
	}
	sc := &Scenario{File: file, raw: bytes.Clone(data)}
	_, variants, deps, err := sc.tree()
	if err != nil {
		return nil, err
	}
	var errs ValidationErrors
	if variants != nil {
		var aerrs ValidationErrors
		var adeps []Deprecation
		sc.Axes, adeps, aerrs = parseAxes(file, variants)
		errs = append(errs, aerrs...)
		deps = append(deps, adeps...)
	}
	sc.deprecations = deps
	spec, loc, berrs := sc.build(nil)
	sc.Spec, sc.lines = spec, loc.lines
	errs = append(errs, berrs.schemaOnly()...)
	if len(errs) > 0 {
		return nil, errs.errOrNil()
	}
	if _, err := sc.Expand(nil); err != nil {
		return nil, err
	}
	return sc, nil
}

// tree parses the scenario's text afresh and returns its top-level mapping
// with the variants entry taken out (nil when absent) and every renamed
// key under its new name (the old names it met: the Deprecations).
func (s *Scenario) tree() (*ast.MappingNode, *ast.MappingValueNode, []Deprecation, error) {
	f, err := parser.ParseBytes(s.raw, 0)
	if err != nil {
		return nil, nil, nil, ValidationErrors{fromYAML(s.File, err)}
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	switch {
	case len(docs) == 0:
		return nil, nil, nil, ValidationErrors{{File: s.File, Msg: "empty scenario file"}}
	case len(docs) > 1:
		return nil, nil, nil, ValidationErrors{{File: s.File, Line: lineOf(docs[1].Body), Msg: "one YAML document per scenario file"}}
	}
	var root *ast.MappingNode
	switch v := unwrap(docs[0].Body).(type) {
	case *ast.MappingNode:
		root = v
	case *ast.MappingValueNode:
		root = ast.Mapping(v.GetToken(), false, v)
	default:
		return nil, nil, nil, ValidationErrors{{File: s.File, Line: lineOf(docs[0].Body), Msg: "want a mapping (name: ..., target: ..., load: ...)"}}
	}
	variants := removeEntry(root, "variants")
	deps, errs := renameKeys(s.File, root)
	if len(errs) > 0 {
		return nil, nil, nil, errs
	}
	return root, variants, deps, nil
}

// build decodes the scenario with the overrides written in: schema check,
// strict decode onto Defaults, normalisation, validation. It returns the
// spec, where its values came from, and every error found.
func (s *Scenario) build(ovs []override) (Spec, *locator, ValidationErrors) {
	loc := newLocator(s.File)
	spec := Defaults()
	root, _, _, err := s.tree()
	if err != nil {
		return spec, loc, err.(ValidationErrors)
	}
	dropOverridden(root, ovs)
	c := &checker{loc: loc}
	for _, o := range ovs {
		if o.set {
			loc.fromSet[o.path] = true
		}
		if err := o.apply(root); err != nil {
			e := loc.errAt(o.path, o.text, err.Error())
			if e.Line == 0 && !o.set {
				e.Line = o.line // a variant's value: its line in variants
			}
			c.errs = append(c.errs, e)
		}
	}
	c.walkMapping(root, specType, "")
	for _, e := range c.errs {
		e.schema = true
	}
	if len(c.errs) > 0 {
		return spec, loc, c.errs
	}
	platformBlocks := takeBlocks(root, "", platformBlockKeys())
	loadBlocks := takeBlocks(root, "load", loadBlockKeys())
	actionBlocks := takeBlocks(root, "action", actionBlockKeys())
	if err := yaml.NodeToValue(root, &spec, yaml.Strict()); err != nil {
		e := fromYAML(s.File, err)
		e.schema = true
		return spec, loc, ValidationErrors{e}
	}
	if e := decodeBlocks(s.File, platformBlocks, platformBlockKeys(), func(key string) any { b, _ := platformBlockOf(key); return b },
		func(b any) { spec.SetBlock(b.(PlatformBlock)) }); e != nil {
		return spec, loc, ValidationErrors{e}
	}
	if e := decodeBlocks(s.File, loadBlocks, loadBlockKeys(), func(key string) any { b, _ := loadBlockOf(key); return b },
		func(b any) { spec.Load.SetBlock(b.(LoadBlock)) }); e != nil {
		return spec, loc, ValidationErrors{e}
	}
	if e := decodeBlocks(s.File, actionBlocks, actionBlockKeys(), func(key string) any { b, _ := actionBlockOf(key); return b },
		func(b any) { spec.Action.SetBlock(b.(ActionBlock)) }); e != nil {
		return spec, loc, ValidationErrors{e}
	}
	spec.normalize()
	return spec, loc, validate(&spec, loc)
}

// takeBlocks takes the kinds' settings blocks (load.ws, action.terminate,
// …: keys) out of the tree's section ("": the top level), by key, for build to decode each
// into its kind's type: they are no fields (kindblocks.go). A section
// left empty is removed.
func takeBlocks(root *ast.MappingNode, section string, keys []string) map[string]ast.Node {
	if section == "" {
		return takeKeys(root, keys)
	}
	sec := entry(root, section)
	if sec == nil {
		return nil
	}
	var m *ast.MappingNode
	switch v := unwrap(sec.Value).(type) {
	case *ast.MappingNode:
		m = v
	case *ast.MappingValueNode:
		m = ast.Mapping(v.GetToken(), false, v)
		sec.Value = m
	default:
		return nil // not a mapping: the schema check said so
	}
	out := takeKeys(m, keys)
	if len(m.Values) == 0 {
		removeEntry(root, section)
	}
	return out
}

// takeKeys removes the entries of keys from m and returns their values.
func takeKeys(m *ast.MappingNode, keys []string) map[string]ast.Node {
	out := map[string]ast.Node{}
	for _, key := range keys {
		if e := removeEntry(m, key); e != nil {
			out[key] = e.Value
		}
	}
	return out
}

// decodeBlocks decodes each taken block, in keys' order, into a fresh
// block of its kind (newBlock) and hands it to set; the first error is
// returned as the decoder's.
func decodeBlocks(file string, blocks map[string]ast.Node, keys []string, newBlock func(string) any, set func(any)) *ValidationError {
	for _, key := range keys {
		n, ok := blocks[key]
		if !ok {
			continue
		}
		b := newBlock(key)
		if err := yaml.NodeToValue(n, b, yaml.Strict()); err != nil {
			e := fromYAML(file, err)
			e.schema = true
			return e
		}
		set(b)
	}
	return nil
}
