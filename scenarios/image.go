package scenarios

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// Running a scenario written for the built-in target against a user's own
// image (--image, i.e. --set target.image=NAME), and overrides that change
// what other values of the file mean:
//
//   - variant axes that only turn built-in target knobs (BuiltinKnobs)
//     collapse into one variant, since they would run the same image
//     several times under different labels (ImageNotes says which);
//   - a user image declares only its ready path, plus target.protocol.paths
//     (a list --set can give: --set target.protocol.paths=/a,/b), so load on
//     any other path is refused before anything runs;
//   - an override of action.kind drops the file's values that belonged to
//     its own kind (action.stop_signal, action.grace_period, action.roll), and an
//     image given by --set drops the file's target.runtime and target.env
//     (the built-in target's knobs: a user's image runs with its own
//     environment; --set target.env.NAME=VALUE gives it one).

// BuiltinKnobs are the variant keys that configure only the built-in
// targets: the shutdown mode, the runtime, and the environment variables
// targetapp reads. target.init, target.entrypoint and target.grace_period
// are not among them: they change how Docker runs any image.
var BuiltinKnobs = []string{
	"target.mode", "target.runtime",
	"target.env.DRAIN_MS", "target.env.PRESTOP_MS", "target.env.KEEPALIVE_MS", "target.env.SWEEP_MS",
	"target.env.LISTEN_HOST", "target.env.DATA_DIR",
}

// listSets are the list fields --set may give, comma-separated. Lists stay
// out of the variant matrix.
var listSets = map[string]bool{"target.protocol.paths": true, "proxy.retry_methods": true}

// Parse loads a scenario from its text as Load does from a file; file names
// it in errors and Scenario.File (for scenarios made by a command, such as
// `shutdownlab check`).
func Parse(file string, data []byte) (*Scenario, error) { return parse(file, data) }

// resolveSet is resolve for --set: it also accepts the fields of listSets.
func resolveSet(path string) (reflect.Type, error) {
	if listSets[path] {
		return reflect.TypeFor[[]string](), nil
	}
	return resolve(path)
}

// listNode builds the YAML list of a comma-separated --set value
// ("/slow,/write"; an empty value is the empty list).
func listNode(text string, line int) ast.Node {
	pos := &token.Position{Line: line}
	seq := ast.Sequence(token.SequenceStart("[", pos), true)
	for _, item := range strings.Split(text, ",") {
		if item = strings.TrimSpace(item); item != "" {
			seq.Values = append(seq.Values, ast.String(token.String(item, strconv.Quote(item), pos)))
		}
	}
	return seq
}

// imageFromSet returns the image an override from --set (or --image) names
// when the file itself names none: the file was then written for the
// built-in target. "" otherwise.
func (s *Scenario) imageFromSet(ovs []override) string {
	if s.lines["target.image"] > 0 {
		return ""
	}
	img := ""
	for _, o := range ovs {
		if o.set && o.path == "target.image" {
			img = strings.TrimSpace(o.text)
		}
	}
	return img
}

// collapseForImage splits axes into those kept and those that only turn
// BuiltinKnobs, when an image replaces the built-in target of a file
// written for it (imageFromSet). An axis a --set narrowed is kept.
func (s *Scenario) collapseForImage(axes []Axis, ovs []override) (kept, collapsed []Axis) {
	if s.imageFromSet(ovs) == "" {
		return axes, nil
	}
	for _, ax := range axes {
		if !ax.fromSet && slices.Contains(BuiltinKnobs, ax.Key) {
			collapsed = append(collapsed, ax)
		} else {
			kept = append(kept, ax)
		}
	}
	return kept, collapsed
}

// ImageNotes returns one line per variant axis that Expand(sets) collapses
// because an image given by --set replaces the built-in target the file was
// written for (see collapseForImage), naming the axis, its values and the
// value the image runs with. Nil when nothing collapses.
func (s *Scenario) ImageNotes(sets []string) []string {
	ovs, _ := parseSets(sets)
	_, collapsed := s.collapseForImage(narrow(s.Axes, ovs), ovs)
	img := s.imageFromSet(ovs)
	var notes []string
	if dropped := s.droppedEnv(ovs); img != "" && len(dropped) > 0 {
		notes = append(notes, fmt.Sprintf("%s: target.env %s is written for the built-in target and not given to image %s, which runs with its own environment (--set target.env.NAME=VALUE gives it one)",
			s.Name(), strings.Join(dropped, ", "), img))
	}
	if len(collapsed) == 0 {
		return notes
	}
	spec, _, _ := s.build(ovs)
	for _, ax := range collapsed {
		notes = append(notes, fmt.Sprintf("%s: variant axis %s [%s] collapsed into one variant: it configures the built-in target only, and image %s runs the same under each value (%s)",
			s.Name(), ax.Key, strings.Join(ax.Values, ", "), img, builtinValue(spec.Target, ax.Key)))
	}
	return notes
}

// builtinValue says what a collapsed knob is set to for the image.
func builtinValue(t Target, key string) string {
	switch {
	case key == "target.mode":
		return "MODE is not set: a user's image runs with its own environment"
	case key == "target.runtime":
		return "a runtime names a built-in target"
	}
	name := strings.TrimPrefix(key, "target.env.")
	if v, ok := t.Env[name]; ok {
		return name + "=" + v + " is still in its environment"
	}
	return name + " is not set"
}

// droppedEnv lists, as NAME=VALUE, the file's target.env entries an image
// given by --set does not get (see dropOverridden): those no --set gives.
func (s *Scenario) droppedEnv(ovs []override) []string {
	set := map[string]bool{}
	for _, o := range ovs {
		set[o.path] = true
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(s.Spec.Target.Env)) {
		if !set["target.env."+k] {
			out = append(out, k+"="+s.Spec.Target.Env[k])
		}
	}
	return out
}

// dropOverridden removes from the file's tree (before the overrides are
// written into it) the values that belong to what an override replaces:
//   - action.kind changed to another kind: the file's action.stop_signal unless
//     the new kind sends one (signal, roll), its action.grace_period unless the
//     new kind has a grace period (stop, roll), its action.roll unless
//     the new kind is roll, and its action.rollout unless it is rollout —
//     each unless an override sets it too;
//   - target.image given by --set to a file without one: the file's
//     target.runtime (it names a built-in target).
//
// So `--set action.kind=stop` works alone on a file that says
// `signal: SIGTERM`, as a variant axis action.kind: [signal, stop] does.
func dropOverridden(root *ast.MappingNode, ovs []override) {
	last := map[string]override{}
	under := map[string]bool{}
	for _, o := range ovs {
		last[o.path] = o
		for p := o.path; strings.Contains(p, "."); {
			p = p[:strings.LastIndex(p, ".")]
			under[p] = true
		}
	}
	if o, ok := last["action.kind"]; ok {
		kind := ActionKind(strings.TrimSpace(o.text))
		fileKind := ActionSignal
		if mv := entry(mappingAt(root, "action"), "kind"); mv != nil {
			fileKind = ActionKind(text(mv.Value))
		}
		if kind != fileKind {
			drop := func(field string, keep bool) {
				if _, set := last["action."+field]; !keep && !set && !under["action."+field] {
					removeEntry(mappingAt(root, "action"), field)
				}
			}
			drop("stop_signal", kind == ActionSignal || kind == ActionRoll)
			drop("grace_period", kind == ActionStop || kind == ActionRoll)
			drop("roll", kind == ActionRoll)
			drop("rollout", kind == ActionRollout)
		}
	}
	if o, ok := last["target.image"]; ok && o.set && strings.TrimSpace(o.text) != "" {
		t := mappingAt(root, "target")
		if _, set := last["target.runtime"]; entry(t, "image") == nil && !set {
			removeEntry(t, "runtime")
		}
		if entry(t, "image") == nil && entry(t, "env") != nil {
			env := mappingAt(t, "env")
			for _, v := range slices.Clone(env.Values) {
				if k, _ := scalarText(v.Key); !setEnv(last, k) {
					removeEntry(env, k)
				}
			}
		}
	}
}

// mappingAt returns the mapping under key in root, made editable (a
// single-entry block mapping is wrapped in a mapping node); an empty
// detached mapping when there is none.
func mappingAt(root *ast.MappingNode, key string) *ast.MappingNode {
	mv := entry(root, key)
	if mv == nil {
		return newMapping()
	}
	switch v := unwrap(mv.Value).(type) {
	case *ast.MappingNode:
		return v
	case *ast.MappingValueNode:
		m := ast.Mapping(token.MappingStart("{", &token.Position{}), true, v)
		mv.Value = m
		return m
	}
	return newMapping()
}

// declareImagePaths makes a user image's protocol declare only what was
// given: its ready path, and target.protocol.paths only when the file, a
// variant or a --set wrote it (the built-in targets' paths are not a
// default for somebody else's image).
func declareImagePaths(s *Spec, loc *locator) {
	if s.Target.Image != "" && !loc.given("target.protocol.paths") {
		s.Target.Protocol.Paths = nil
	}
}

// undeclaredPath is the message refusing load on a path an image does not
// declare: what it declares, and how to declare the path.
func undeclaredPath(t Target, target string) string {
	path, _, _ := strings.Cut(target, "?")
	p := t.Protocol
	declared := "ready path " + p.ReadyPath
	if len(p.Paths) > 0 {
		declared += fmt.Sprintf(", target.protocol.paths [%s]", strings.Join(p.Paths, ", "))
	}
	return fmt.Sprintf("image %s does not declare path %q (declared: %s); if it serves %s: --set target.protocol.paths=%s (or target.protocol.paths in a scenario file)",
		t.Image, path, declared, path, strings.Join(append(slices.Clone(p.Paths), path), ","))
}

// setEnv reports whether an override sets target.env.NAME.
func setEnv(last map[string]override, name string) bool {
	_, ok := last["target.env."+name]
	return ok
}
