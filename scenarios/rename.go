package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// One name per idea. The grace period — the time from the stop signal to
// SIGKILL, whoever sends them (docker stop, the kubelet, Swarm) — is
// grace_period, and the signal that asks the target to stop is
// stop_signal, in every block that has one. A probe is the raw-socket
// probe load (load.kind: probe) and nothing else: which endpoint a
// rollout's health check GETs is action.rollout.healthcheck.check. The
// keys they replace (renamedKeys) still decode onto the same fields for a
// release: each use in a file, a variant key or a --set is a Deprecation,
// which the CLI prints naming where, the old key and the new one; a file
// (or a set of --set values) giving both names of one field is an error
// naming both.
//
// What results record keeps the old names, so results from before and
// after the rename read and compare alike: effective.json's fields (the
// JSON tags), and a variant's keys, params and label (recordedPath:
// "timeout=10s" whichever name the file used), which result directories,
// events.json, gate and reproduce's rules match.

// renamedKey is a key given a new name: dotted paths, the same field.
type renamedKey struct {
	old, new string
}

// renamedKeys are the renamed keys, old name first.
var renamedKeys = []renamedKey{
	{"target.stop_timeout", "target.grace_period"},
	{"action.signal", "action.stop_signal"},
	{"action.timeout", "action.grace_period"},
	{"action.terminate.grace", "action.terminate.grace_period"},
	{"action.rollout.stop_grace_period", "action.rollout.grace_period"},
	{"action.rollout.healthcheck.probe", "action.rollout.healthcheck.check"},
}

// RenamedKeys maps each renamed key's old dotted path to its new one, for
// the documentation and for tests that look for old names.
func RenamedKeys() map[string]string {
	out := map[string]string{}
	for _, r := range renamedKeys {
		out[r.old] = r.new
	}
	return out
}

// Deprecation is one use of a renamed key's old name: where, and both
// names.
type Deprecation struct {
	// File is the scenario file, or SetSource for a --set.
	File string
	// Line is the 1-based line of the key in File (0: a --set).
	Line int
	// Old is the deprecated dotted path, New the one to use instead.
	Old, New string
}

// String reads like
//
//	scenarios/catalog/x.yaml:12: action.timeout is deprecated: use action.grace_period
func (d Deprecation) String() string {
	where := d.File
	if d.Line > 0 {
		where += fmt.Sprintf(":%d", d.Line)
	}
	return fmt.Sprintf("%s: %s is deprecated: use %s", where, d.Old, d.New)
}

// canonicalPath returns path under its current name, and true when path
// is a renamed key's old name.
func canonicalPath(path string) (string, bool) {
	for _, r := range renamedKeys {
		if path == r.old {
			return r.new, true
		}
	}
	return path, false
}

// recordedPath is the name results record path under (either name of a
// renamed key: its old one; any other path: itself).
func recordedPath(path string) string {
	canon, _ := canonicalPath(path)
	for _, r := range renamedKeys {
		if canon == r.new {
			return r.old
		}
	}
	return canon
}

// renameKeys gives every old key name in a scenario file's tree its new
// name, in place, and returns a Deprecation for each, in line order; a
// mapping holding both names of one key is an error naming both.
func renameKeys(file string, root ast.Node) ([]Deprecation, ValidationErrors) {
	var deps []Deprecation
	var errs ValidationErrors
	for _, r := range renamedKeys {
		parent, oldKey := splitLast(r.old)
		_, newKey := splitLast(r.new)
		for _, values := range mappingsAt(root, parent) {
			var cur *ast.MappingValueNode
			for _, mv := range values {
				if text(mv.Key) == newKey && cur == nil {
					cur = mv
				}
			}
			for _, mv := range values {
				if text(mv.Key) != oldKey {
					continue
				}
				line := lineOf(mv.Key)
				if cur != nil {
					errs = append(errs, &ValidationError{File: file, Line: line, Field: r.old, schema: true,
						Msg: fmt.Sprintf("%s (line %d) sets the same field: give only %s (%s is deprecated)", r.new, lineOf(cur.Key), r.new, r.old)})
					continue
				}
				deps = append(deps, Deprecation{File: file, Line: line, Old: r.old, New: r.new})
				var pos *token.Position
				if tk := mv.Key.GetToken(); tk != nil {
					pos = tk.Position
				}
				mv.Key = ast.String(token.String(newKey, newKey, pos))
			}
		}
	}
	slices.SortStableFunc(deps, func(a, b Deprecation) int { return a.Line - b.Line })
	return deps, errs
}

// mappingsAt returns the entries of every mapping at the dotted path in
// n ("": n itself), following each entry of a key given twice.
func mappingsAt(n ast.Node, path string) [][]*ast.MappingValueNode {
	values, ok := mappingValues(n)
	if !ok {
		return nil
	}
	if path == "" {
		return [][]*ast.MappingValueNode{values}
	}
	head, rest, _ := strings.Cut(path, ".")
	var out [][]*ast.MappingValueNode
	for _, mv := range values {
		if text(mv.Key) == head {
			out = append(out, mappingsAt(mv.Value, rest)...)
		}
	}
	return out
}

// splitLast splits a dotted path at its last dot: "action.timeout" is
// "action" and "timeout".
func splitLast(path string) (parent, key string) {
	i := strings.LastIndex(path, ".")
	if i < 0 {
		return "", path
	}
	return path[:i], path[i+1:]
}

// Deprecations returns every use of a renamed key's old name that loading
// the scenario and expanding it with sets meets: the file's and its
// variant keys' (with their lines), then the --set values' (File
// SetSource), each once. The CLI prints one line per Deprecation.
func (s *Scenario) Deprecations(sets []string) []Deprecation {
	out := slices.Clone(s.deprecations)
	ovs, _ := parseSets(sets)
	seen := map[string]bool{}
	for _, o := range ovs {
		if o.old != "" && !seen[o.old] {
			seen[o.old] = true
			out = append(out, Deprecation{File: SetSource, Old: o.old, New: o.path})
		}
	}
	return out
}

// RenameSets returns sets ("key=value") with every renamed key's old name
// replaced by its new one, for a command that passes --set values on to a
// scenario of its own after their Deprecations were printed once.
func RenameSets(sets []string) []string {
	out := make([]string, len(sets))
	for i, s := range sets {
		key, value, ok := strings.Cut(s, "=")
		if path, renamed := canonicalPath(strings.TrimSpace(key)); ok && renamed {
			s = path + "=" + value
		}
		out[i] = s
	}
	return out
}
